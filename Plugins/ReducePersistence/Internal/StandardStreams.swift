// `@preconcurrency`: the C library declares `stdout` and `stderr` as mutable globals, which
// Swift 6 refuses to read from concurrent code. They are set before `main` and never changed,
// so reading them from any thread is safe.
#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  @preconcurrency import Darwin
#endif

/// Writes out what `print` and the C library buffered for standard output and standard error.
///
/// Only these two streams: `fflush(nil)` would also wait for the lock of standard input, which
/// a thread blocked reading a line holds.
func flushStandardStreams() {
  fflush(stdout)
  fflush(stderr)
}
