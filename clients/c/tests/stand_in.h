/* A stand-in license server for the tests that need the server's answers (POSIX: fork): a child
 * process on 127.0.0.1 that answers a script of responses, one request each, and logs the requests
 * it was sent. Static: each test program includes it once, after test_support.h. */
#ifndef LC_STAND_IN_H
#define LC_STAND_IN_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

typedef struct {
    pid_t pid;
    int port;
    char log[64];
} stand_in;

static void append_log(const char *path, const char *text, size_t length) {
    FILE *file = fopen(path, "ab");
    if (!file) return;
    fwrite(text, 1, length, file);
    fputs("\n-----\n", file);
    fclose(file);
}

/* One request read whole (headers, then Content-Length bytes): its length, 0 when the peer closed. */
static size_t read_request(int fd, char *buffer, size_t size) {
    size_t used = 0, need = 0;
    char *end = NULL;
    while (used + 1 < size) {
        ssize_t n = recv(fd, buffer + used, size - 1 - used, 0);
        if (n <= 0) break;
        used += (size_t)n;
        buffer[used] = 0;
        if (!end && (end = strstr(buffer, "\r\n\r\n")) != NULL) {
            char *p;
            for (p = buffer; p < end; p++)
                if (strncasecmp(p, "\r\ncontent-length:", 17) == 0) need = strtoul(p + 17, NULL, 10);
            need += (size_t)(end + 4 - buffer);
        }
        if (end && used >= need) break;
    }
    buffer[used] = 0;
    return used;
}

/* Answers the responses (status and JSON body; a NULL-terminated list of pairs) one request each. */
static stand_in start_stand_in(const char *const *script) {
    stand_in server;
    struct sockaddr_in address;
    socklen_t length = sizeof address;
    int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    memset(&server, 0, sizeof server);
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 8) != 0 ||
        getsockname(listener, (struct sockaddr *)&address, &length) != 0)
        abort();
    server.port = ntohs(address.sin_port);
    snprintf(server.log, sizeof server.log, "/tmp/lc-stand-in-%d.log", server.port);
    remove(server.log);
    fflush(NULL);
    server.pid = fork();
    if (server.pid < 0) abort();
    if (server.pid == 0) {
        size_t i;
        static char request[65536];
        for (i = 0; script[i]; i += 2) {
            char response[8192];
            const char *body = script[i + 1];
            int fd = accept(listener, NULL, NULL), written;
            size_t got;
            if (fd < 0) _exit(1);
            got = read_request(fd, request, sizeof request);
            append_log(server.log, request, got);
            written = snprintf(response, sizeof response, "HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %lu\r\nConnection: close\r\n\r\n%s", script[i],
                               (unsigned long)strlen(body), body);
            if (send(fd, response, (size_t)written, 0) < 0) _exit(1);
            close(fd);
        }
        close(listener);
        _exit(0);
    }
    close(listener);
    return server;
}

/* Waits for the stand-in (ended when the client asked less than scripted) and returns its log. */
static char *stop_stand_in(stand_in *server) {
    char *log;
    int status;
    kill(server->pid, SIGTERM);
    waitpid(server->pid, &status, 0);
    log = lc_read_file(server->log, NULL);
    remove(server->log);
    return log ? log : lc_copy("");
}

static int count_of(const char *text, const char *part) {
    int n = 0;
    for (; (text = strstr(text, part)) != NULL; text += strlen(part)) n++;
    return n;
}

#endif
