#ifndef CZSTD_SHIM_H
#define CZSTD_SHIM_H

#include <zstd.h>

// ZSTD_CONTENTSIZE_UNKNOWN and ZSTD_CONTENTSIZE_ERROR are macros of casts, which Swift does not import.
static inline int CZstd_contentSizeKnown(unsigned long long size) {
    return size != ZSTD_CONTENTSIZE_UNKNOWN && size != ZSTD_CONTENTSIZE_ERROR;
}

#endif
