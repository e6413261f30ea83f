// Command libdal is the DAL built as a C shared library
// (go build -buildmode=c-shared). Its C ABI is native/include/dal.h; the
// exports live in exports_*.go, the per-thread state in tls.c, and all the
// work in internal/engine.
package main

func main() {} // required by -buildmode=c-shared, never called
