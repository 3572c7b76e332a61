#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon is variadic (options as a va_list of pairs), which Swift cannot call.
// This wrapper passes the fixed option set the HTTP module uses. Every callback gets the
// same context pointer (the server's state, passed unretained from Swift).
// - address: the bind address, port included (MHD_OPTION_SOCK_ADDR); the `port` argument of
//   MHD_start_daemon is ignored when it is given, so it is taken from here.
// - threadPoolSize: worker threads, each running its own event loop (MHD_OPTION_THREAD_POOL_SIZE);
//   0 means no pool: the one internal polling thread does all the work.
// - connectionTimeoutSeconds: idle connections, and clients that stall mid-request, are closed
//   after this long without traffic (MHD_OPTION_CONNECTION_TIMEOUT).
// - connectionLimit: connections beyond it are not accepted; they wait in the kernel's listen
//   queue until one closes (MHD_OPTION_CONNECTION_LIMIT).
// - perIPConnectionLimit: connections from one address beyond it are closed at accept; 0 means no
//   limit (MHD_OPTION_PER_IP_CONNECTION_LIMIT). Counted across the whole pool, by IPv4 address
//   or whole IPv6 address.
// - connectionMemoryLimit: per-connection buffer for headers and body reads.
// - logger: receives MHD's error messages instead of stderr (MHD_OPTION_EXTERNAL_LOGGER).
// - uriLog: sees each request target as sent, before MHD decodes its escapes; what it returns is
//   the request's first context pointer (MHD_OPTION_URI_LOG_CALLBACK).
typedef void *(*CMicroHTTPD_URILogCallback)(void *cls, const char *uri, struct MHD_Connection *connection);

static inline struct MHD_Daemon *CMicroHTTPD_startDaemon(
    unsigned int flags, uint16_t port, const struct sockaddr *address,
    MHD_AccessHandlerCallback handler, void *context,
    unsigned int threadPoolSize, unsigned int connectionTimeoutSeconds,
    unsigned int connectionLimit, unsigned int perIPConnectionLimit, size_t connectionMemoryLimit,
    MHD_RequestCompletedCallback completed,
    MHD_NotifyConnectionCallback notifyConnection,
    MHD_LogCallback logger,
    CMicroHTTPD_URILogCallback uriLog) {
    // The logger comes first: MHD reports problems with later options through it.
    return MHD_start_daemon(flags, port, NULL, NULL, handler, context,
        MHD_OPTION_EXTERNAL_LOGGER, logger, context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_THREAD_POOL_SIZE, threadPoolSize,
        MHD_OPTION_CONNECTION_TIMEOUT, connectionTimeoutSeconds,
        MHD_OPTION_CONNECTION_LIMIT, connectionLimit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, perIPConnectionLimit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connectionMemoryLimit,
        MHD_OPTION_NOTIFY_COMPLETED, completed, context,
        MHD_OPTION_NOTIFY_CONNECTION, notifyConnection, context,
        MHD_OPTION_URI_LOG_CALLBACK, uriLog, context,
        MHD_OPTION_END);
}

// MHD_get_daemon_info is variadic; this asks it for the port the daemon is bound to,
// which is how a server started on port 0 learns its ephemeral port. Returns 0 on failure.
static inline uint16_t CMicroHTTPD_boundPort(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

// MHD_get_connection_info is variadic too; this asks it for the connection's socket, so the
// server can shut down one that is too slow to send its request. Returns -1 on failure.
static inline int CMicroHTTPD_connectionSocket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* The client's address (MHD_get_connection_info is variadic, which Swift cannot call). */
static inline const struct sockaddr *CMicroHTTPD_clientAddress(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

#endif
