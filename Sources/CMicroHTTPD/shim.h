#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon is variadic (options as a va_list of pairs), which Swift cannot call.
// This wrapper passes a fixed option set: a thread pool, a per-connection memory limit,
// a connection timeout and a connection-notification callback may all be added here.
static inline struct MHD_Daemon *CMicroHTTPD_startDaemon(
    unsigned int flags, uint16_t port,
    MHD_AccessHandlerCallback handler, void *handlerContext,
    unsigned int threadPoolSize, unsigned int connectionTimeoutSeconds,
    size_t connectionMemoryLimit,
    MHD_RequestCompletedCallback completed, void *completedContext) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handlerContext,
        MHD_OPTION_THREAD_POOL_SIZE, threadPoolSize,
        MHD_OPTION_CONNECTION_TIMEOUT, connectionTimeoutSeconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connectionMemoryLimit,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completedContext,
        MHD_OPTION_END);
}

#endif
