// SPDX-License-Identifier: Apache-2.0
//
// The handler of Boost's debug assertions (BOOST_ENABLE_ASSERT_DEBUG_HANDLER
// is defined for everything that includes the server's Boost headers; in
// Release, NDEBUG compiles the assertions out as before).
//
// Every assertion aborts with its place, except one that is known to be
// wrong: Beast <= 1.85 asserts `n >= 5` in basic_parser::parse_chunk_header
// when it re-enters the final chunk of a chunked body. That holds only when
// data chunks came before; an empty chunked body whose last "0\r\n" arrives
// apart from its closing CRLF re-enters with 3 or 4 bytes. The code after the
// assertion handles that case (it looks for the end of the trailer and asks
// for more), so only the assertion is wrong. Upstream fixed it by relaxing
// the assertion (boostorg/beast pull request 2861, in Boost 1.86);
// RequestReaderTest.EmptyChunkedBodyInPieces drives exactly that case.
#include <boost/assert.hpp>
#include <boost/version.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(BOOST_ENABLE_ASSERT_DEBUG_HANDLER) && !defined(NDEBUG)

namespace {

bool EndsWith(const char* s, const char* suffix) {
  const size_t n = std::strlen(s);
  const size_t m = std::strlen(suffix);
  return n >= m && std::strcmp(s + n - m, suffix) == 0;
}

bool KnownWrongAssertion(const char* expr, const char* file) {
#if BOOST_VERSION < 108600
  return std::strcmp(expr, "n >= 5") == 0 && EndsWith(file, "beast/http/impl/basic_parser.ipp");
#else
  (void)expr;
  (void)file;
  return false;
#endif
}

}  // namespace

namespace boost {

void assertion_failed(char const* expr, char const* function, char const* file, long line) {
  if (KnownWrongAssertion(expr, file)) return;
  std::fprintf(stderr, "%s:%ld: %s: Boost assertion `%s' failed\n", file, line, function, expr);
  std::abort();
}

void assertion_failed_msg(char const* expr, char const* msg, char const* function, char const* file,
                          long line) {
  if (KnownWrongAssertion(expr, file)) return;
  std::fprintf(stderr, "%s:%ld: %s: Boost assertion `%s' failed: %s\n", file, line, function, expr,
               msg);
  std::abort();
}

}  // namespace boost

#endif  // BOOST_ENABLE_ASSERT_DEBUG_HANDLER && !NDEBUG
