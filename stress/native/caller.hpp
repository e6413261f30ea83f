// caller.hpp -- the two call styles of dalstress.  Both call the very same
// functions of libdalshim.so (dalshim_query_into, or dalshim_query +
// dalshim_buffer_size + dalshim_free); only the way the call is made differs:
//
//   DirectCaller  a plain C call through the PLT, what a C/C++ host does.
//   FfiCaller     ffi_call() with a cif prepared once (ffi_prep_cif), what a
//                 generic FFI without a JIT (Python ctypes, koffi's slow path,
//                 Deno/Bun without their compiled trampolines) does per call.
//
// Every argument that does not change between queries (handle, request
// pointer and length, buffer pointer and capacity) is bound once at
// construction, so the per-query cost is only the call itself; a workload
// whose request changes per query rebinds it (set_request), a plain store.
#pragma once

#include <ffi.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "dalshim.h"

namespace dalstress {

struct CallArgs {
  int64_t handle = 0;
  const void* req = nullptr;
  size_t req_len = 0;
  void* buf = nullptr;
  size_t cap = 0;
};

class DirectCaller {
 public:
  explicit DirectCaller(const CallArgs& a) : a_(a) {}
  // Workloads whose requests change per query rebind these before a call.
  void set_request(const void* req, size_t len) { a_.req = req, a_.req_len = len; }
  void set_buffer(void* buf, size_t cap) { a_.buf = buf, a_.cap = cap; }
  int64_t query_into() { return dalshim_query_into(a_.handle, a_.req, a_.req_len, a_.buf, a_.cap); }
  void* query() { return dalshim_query(a_.handle, a_.req, a_.req_len); }
  int64_t buffer_size(void* p) { return dalshim_buffer_size(p); }
  int32_t free(void* p) { return dalshim_free(p); }

 private:
  CallArgs a_;
};

class FfiCaller {
 public:
  explicit FfiCaller(const CallArgs& a) : a_(a) {
    // int64_t dalshim_query_into(int64_t, const void*, size_t, void*, size_t)
    into_types_[0] = &ffi_type_sint64;
    into_types_[1] = &ffi_type_pointer;
    into_types_[2] = &ffi_type_uint64;  // size_t on LP64
    into_types_[3] = &ffi_type_pointer;
    into_types_[4] = &ffi_type_uint64;
    prep(into_cif_, 5, &ffi_type_sint64, into_types_, "dalshim_query_into");
    into_args_[0] = &a_.handle;
    into_args_[1] = &a_.req;
    into_args_[2] = &a_.req_len;
    into_args_[3] = &a_.buf;
    into_args_[4] = &a_.cap;
    // void* dalshim_query(int64_t, const void*, size_t)
    prep(query_cif_, 3, &ffi_type_pointer, into_types_, "dalshim_query");
    // int64_t dalshim_buffer_size(const void*) / int32_t dalshim_free(void*)
    ptr_types_[0] = &ffi_type_pointer;
    prep(size_cif_, 1, &ffi_type_sint64, ptr_types_, "dalshim_buffer_size");
    prep(free_cif_, 1, &ffi_type_sint32, ptr_types_, "dalshim_free");
  }
  FfiCaller(const FfiCaller&) = delete;
  FfiCaller& operator=(const FfiCaller&) = delete;

  // The argument array points at a_'s fields, so rebinding them is enough.
  void set_request(const void* req, size_t len) { a_.req = req, a_.req_len = len; }
  void set_buffer(void* buf, size_t cap) { a_.buf = buf, a_.cap = cap; }

  int64_t query_into() {
    int64_t r = 0;
    ffi_call(&into_cif_, FFI_FN(&dalshim_query_into), &r, into_args_);
    return r;
  }
  void* query() {
    void* r = nullptr;
    ffi_call(&query_cif_, FFI_FN(&dalshim_query), &r, into_args_);  // first three args are the same
    return r;
  }
  int64_t buffer_size(void* p) {
    int64_t r = 0;
    void* args[1] = {&p};
    ffi_call(&size_cif_, FFI_FN(&dalshim_buffer_size), &r, args);
    return r;
  }
  int32_t free(void* p) {
    ffi_arg r = 0;  // return values narrower than a register come back widened to ffi_arg
    void* args[1] = {&p};
    ffi_call(&free_cif_, FFI_FN(&dalshim_free), &r, args);
    return static_cast<int32_t>(r);
  }

 private:
  static void prep(ffi_cif& cif, unsigned n, ffi_type* ret, ffi_type** types, const char* what) {
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, n, ret, types) != FFI_OK)
      throw std::runtime_error(std::string("ffi_prep_cif failed for ") + what);
  }

  CallArgs a_;
  ffi_type* into_types_[5]{};
  ffi_type* ptr_types_[1]{};
  void* into_args_[5]{};
  ffi_cif into_cif_{}, query_cif_{}, size_cif_{}, free_cif_{};
};

static_assert(sizeof(size_t) == 8, "FfiCaller maps size_t to ffi_type_uint64");

}  // namespace dalstress
