// SPDX-License-Identifier: Apache-2.0
//
// Clang's thread-safety analysis attributes (clang.llvm.org/docs/
// ThreadSafetyAnalysis.html), as macros that vanish on other compilers. The
// clang builds compile with -Wthread-safety -Werror=thread-safety, so a
// field marked GUARDED_BY(mu) read without `mu` held does not compile there.
#ifndef NEARDUP_BASE_THREAD_ANNOTATIONS_H_
#define NEARDUP_BASE_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define NEARDUP_TSA(x) __attribute__((x))
#else
#define NEARDUP_TSA(x)
#endif

#define CAPABILITY(x) NEARDUP_TSA(capability(x))
#define SCOPED_CAPABILITY NEARDUP_TSA(scoped_lockable)
#define GUARDED_BY(x) NEARDUP_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) NEARDUP_TSA(pt_guarded_by(x))
#define REQUIRES(...) NEARDUP_TSA(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) NEARDUP_TSA(requires_shared_capability(__VA_ARGS__))
#define ACQUIRE(...) NEARDUP_TSA(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) NEARDUP_TSA(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) NEARDUP_TSA(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) NEARDUP_TSA(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) NEARDUP_TSA(release_generic_capability(__VA_ARGS__))
#define EXCLUDES(...) NEARDUP_TSA(locks_excluded(__VA_ARGS__))
#define RETURN_CAPABILITY(x) NEARDUP_TSA(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS NEARDUP_TSA(no_thread_safety_analysis)

#endif  // NEARDUP_BASE_THREAD_ANNOTATIONS_H_
