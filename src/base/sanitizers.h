// SPDX-License-Identifier: Apache-2.0
//
// Whether this build runs under AddressSanitizer or ThreadSanitizer (GCC's
// and Clang's spellings). Tests that sweep large inputs use it to check the
// same properties on smaller ones there: the sanitizers look for memory and
// thread errors, which do not need the plain build's sizes, and they make
// every step many times slower (the CI's 30-minute budget).
#ifndef NEARDUP_BASE_SANITIZERS_H_
#define NEARDUP_BASE_SANITIZERS_H_

namespace neardup::base {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace neardup::base

#endif  // NEARDUP_BASE_SANITIZERS_H_
