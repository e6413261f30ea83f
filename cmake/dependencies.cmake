# Configure-time check of everything the kit builds against.
#
# WHY HERE.  Without it a missing package shows up halfway through the build
# (a missing msgpack.hpp after a minute of compiling) or as CMake's generic
# "Could NOT find ...".  Every dependency is looked up once, before any
# subdirectory is configured, and all missing ones are reported together,
# each with the Debian package (or npm command) that provides it.
#
# The real find commands decide (find_path, find_package, pkg-config,
# find_program), so tests/configure can make them fail the way a machine without
# the packages does: an empty CMAKE_FIND_ROOT_PATH, an empty PKG_CONFIG_LIBDIR
# and a PATH without Go.

set(_dalkit_missing "")
set(_dalkit_packages "")
# dalkit_dependency(<found?> <what> <debian package or command>)
macro(dalkit_dependency found what remedy)
  if(NOT ${found})
    list(APPEND _dalkit_missing "  ${what} -- ${remedy}")
    if("${remedy}" MATCHES "^apt-get install (.+)$")
      list(APPEND _dalkit_packages ${CMAKE_MATCH_1})
    endif()
  endif()
endmacro()

# msgpack-c for C++ (header-only): the shim's encoder and decoder.
find_path(DALKIT_MSGPACK_INCLUDE_DIR msgpack.hpp DOC "msgpack-cxx headers (libmsgpack-cxx-dev)")
dalkit_dependency(DALKIT_MSGPACK_INCLUDE_DIR "msgpack-cxx headers (msgpack.hpp)" "apt-get install libmsgpack-cxx-dev")

# nlohmann/json (header-only): dalstress reads the workloads (stress/workloads/*.json).
find_path(DALKIT_NLOHMANN_JSON_INCLUDE_DIR nlohmann/json.hpp DOC "nlohmann/json headers (nlohmann-json3-dev)")
dalkit_dependency(DALKIT_NLOHMANN_JSON_INCLUDE_DIR "nlohmann/json headers (nlohmann/json.hpp)" "apt-get install nlohmann-json3-dev")

# SQLite 3: the DAL's cgo binding links it; tests and the floor bench too.
find_package(SQLite3 QUIET)
dalkit_dependency(SQLite3_FOUND "SQLite 3 headers and library" "apt-get install libsqlite3-dev")

# libffi: dalstress's libffi call style.  Found through pkg-config.
find_package(PkgConfig QUIET)
dalkit_dependency(PKG_CONFIG_FOUND "pkg-config" "apt-get install pkg-config")
if(PKG_CONFIG_FOUND)
  pkg_check_modules(LIBFFI QUIET IMPORTED_TARGET libffi)
  dalkit_dependency(LIBFFI_FOUND "libffi (pkg-config module libffi)" "apt-get install libffi-dev")
endif()

# GoogleTest: every C/C++ test.
find_package(GTest QUIET)
dalkit_dependency(GTest_FOUND "GoogleTest" "apt-get install libgtest-dev")

# Python 3: the stdlib-only checkers of the end-to-end tests.
find_package(Python3 QUIET COMPONENTS Interpreter)
dalkit_dependency(Python3_Interpreter_FOUND "Python 3 interpreter" "apt-get install python3")

# Go >= 1.25: builds libdal.so (Debian 12's golang-go is 1.19, too old for
# cgo's #cgo noescape and the DAL's go.mod).
set(DALKIT_GO_MIN_MINOR 25)
find_program(GO_EXECUTABLE go DOC "Go toolchain, 1.${DALKIT_GO_MIN_MINOR} or newer")
set(_dalkit_go_ok FALSE)
if(GO_EXECUTABLE)
  execute_process(COMMAND ${GO_EXECUTABLE} env GOVERSION
    OUTPUT_VARIABLE _dalkit_go_version OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _dalkit_go_rc)
  if(_dalkit_go_rc EQUAL 0 AND _dalkit_go_version MATCHES "^go1\\.([0-9]+)")
    if(CMAKE_MATCH_1 GREATER_EQUAL DALKIT_GO_MIN_MINOR)
      set(_dalkit_go_ok TRUE)
    endif()
  endif()
  dalkit_dependency(_dalkit_go_ok "Go >= 1.${DALKIT_GO_MIN_MINOR} (found '${_dalkit_go_version}' at ${GO_EXECUTABLE})"
    "install Go 1.${DALKIT_GO_MIN_MINOR} or newer and put it first on PATH")
else()
  dalkit_dependency(_dalkit_go_ok "Go >= 1.${DALKIT_GO_MIN_MINOR} (no `go` on PATH)"
    "install Go 1.${DALKIT_GO_MIN_MINOR} or newer and put it on PATH")
endif()

# Node.js and the addon's build headers, only once the addon exists.  The
# headers come from the pinned npm packages (no header download).
if(EXISTS ${PROJECT_SOURCE_DIR}/addon/CMakeLists.txt)
  find_program(DALKIT_NODE_EXECUTABLE node DOC "Node.js, to build and test the addon")
  dalkit_dependency(DALKIT_NODE_EXECUTABLE "Node.js (node)" "apt-get install nodejs npm")
  find_path(DALKIT_NODE_ADDON_API_DIR napi.h PATHS ${PROJECT_SOURCE_DIR}/node_modules/node-addon-api
    NO_DEFAULT_PATH DOC "node-addon-api package (npm ci)")
  dalkit_dependency(DALKIT_NODE_ADDON_API_DIR "npm package node-addon-api" "run `npm ci` in the repository root")
  find_path(DALKIT_NODE_API_HEADERS_DIR node_api.h PATHS ${PROJECT_SOURCE_DIR}/node_modules/node-api-headers/include
    NO_DEFAULT_PATH DOC "node-api-headers package (npm ci)")
  dalkit_dependency(DALKIT_NODE_API_HEADERS_DIR "npm package node-api-headers" "run `npm ci` in the repository root")
endif()

if(_dalkit_missing)
  list(JOIN _dalkit_missing "\n" _dalkit_lines)
  set(_dalkit_hint "")
  if(_dalkit_packages)
    list(REMOVE_DUPLICATES _dalkit_packages)
    list(JOIN _dalkit_packages " " _dalkit_pkgs)
    set(_dalkit_hint "\nOn Debian 12 (scripts/setup.sh does this for you):\n  sudo apt-get install ${_dalkit_pkgs}")
  endif()
  message(FATAL_ERROR "dalkit: missing build dependencies:\n${_dalkit_lines}${_dalkit_hint}\n")
endif()
