/*
 * pyconfig.h for building tgcrypto_ffi's limited-API (abi3) extension for
 * a platform other than the one whose CPython headers are at hand
 * (build_wheels.py cross-builds all eight targets from one machine).
 *
 * Written for this project. Python.h includes "pyconfig.h" from its own
 * folder, so the build stages a copy of a CPython >= 3.11 Include/ folder
 * with this file in place of the build machine's pyconfig.h. Only what the
 * limited-API headers test is set: type sizes, which system headers exist,
 * and on Windows the DLL import/export model. The test suite checks on
 * x86_64 Linux that the extension compiled with this file is the same code
 * as with CPython's own pyconfig.h.
 *
 * Targets: little-endian 64-bit Linux (glibc, musl), macOS and Windows
 * (x86_64, aarch64). Never used for native or version-specific builds,
 * which take the interpreter's own headers.
 */
#ifndef Py_PYCONFIG_H
#define Py_PYCONFIG_H

#if !defined(Py_LIMITED_API)
#  error "this pyconfig.h is for limited-API (abi3) builds only"
#endif
#if !defined(__LP64__) && !defined(_WIN64)
#  error "this pyconfig.h is for 64-bit targets only"
#endif

#define SIZEOF_SHORT 2
#define SIZEOF_INT 4
#define SIZEOF_LONG_LONG 8
#define SIZEOF_VOID_P 8
#define SIZEOF_SIZE_T 8
#define SIZEOF_DOUBLE 8
#define SIZEOF_FLOAT 4
#define SIZEOF_TIME_T 8
#define HAVE_LONG_LONG 1
#define WITH_DOC_STRINGS 1

#if defined(_WIN32)
/* Windows: LLP64, UTF-16 wchar_t, every API symbol imported from
 * python3.dll (PyAPI_FUNC/PyAPI_DATA become __declspec(dllimport),
 * PyMODINIT_FUNC __declspec(dllexport)). No ssize_t: Py_ssize_t is
 * Py_intptr_t. */
#  define MS_WIN32
#  define MS_WINDOWS
#  define MS_WIN64
#  define NT_THREADS
#  define WITH_THREAD
#  define Py_ENABLE_SHARED 1
#  define HAVE_DECLSPEC_DLL
#  define SIZEOF_LONG 4
#  define SIZEOF_WCHAR_T 2
#  define HAVE_WCHAR_H 1
#  define HAVE_STDDEF_H 1
#else
/* Linux and macOS: LP64, UTF-32 wchar_t, symbols resolved from the
 * interpreter at load time. */
#  define SIZEOF_LONG 8
#  define SIZEOF_WCHAR_T 4
#  define SIZEOF_PID_T 4
#  define SIZEOF_OFF_T 8
#  define HAVE_SSIZE_T 1
#  define HAVE_FORK 1
#  define HAVE_STDDEF_H 1
#  define HAVE_WCHAR_H 1
#  define HAVE_SYS_TIME_H 1
#  define HAVE_SYS_STAT_H 1
#  define HAVE_SYS_SELECT_H 1
#  define HAVE_UNISTD_H 1
#endif

#endif /* Py_PYCONFIG_H */
