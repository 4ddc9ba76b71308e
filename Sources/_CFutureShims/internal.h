// Definitions shared by the shim's files, not exported to Swift.
#ifndef CFUTURESHIMS_INTERNAL_H
#define CFUTURESHIMS_INTERNAL_H

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FC_THREAD_SANITIZER 1
#endif
#endif

#endif
