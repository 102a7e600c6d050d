/* The store: a folder where every .lic and .json file is a candidate (an offline file a person copied
 * there works), the fetched file is license.json, and the client's own notes sit beside them. */
#include "license_client.h"
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#include <process.h>
#include <windows.h>
#define make_dir(path) _mkdir(path)
#define process_id() _getpid()
#else
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#define make_dir(path) mkdir(path, 0700)
#define process_id() getpid()
#endif

static char *join(const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    char *path = malloc(a + b + 2);
    if (!path) return NULL;
    memcpy(path, dir, a);
    path[a] = '/';
    memcpy(path + a + 1, name, b + 1);
    return path;
}

char *lc_read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    char *text = NULL;
    size_t used = 0, capacity = 0, n;
    if (!file) return NULL;
    do {
        if (used + 4096 + 1 > capacity) {
            char *grown = realloc(text, capacity = used + 4096 + 1 + capacity);
            if (!grown) { free(text); fclose(file); return NULL; }
            text = grown;
        }
        n = fread(text + used, 1, 4096, file);
        used += n;
    } while (n == 4096 && used < (1u << 24));
    fclose(file);
    text[used] = 0;
    if (length) *length = used;
    return text;
}

static int is_candidate(const char *name) {
    size_t n = strlen(name);
    const char *dot = strrchr(name, '.');
    if (!dot || name[0] == '.' || n < 5) return 0;
    return (dot[1] == 'l' || dot[1] == 'L') ? (strlen(dot) == 4 && (dot[2] == 'i' || dot[2] == 'I') && (dot[3] == 'c' || dot[3] == 'C'))
                                            : (strlen(dot) == 5 && (dot[1] == 'j' || dot[1] == 'J') && (dot[2] == 's' || dot[2] == 'S') && (dot[3] == 'o' || dot[3] == 'O') && (dot[4] == 'n' || dot[4] == 'N'));
}

static int add(lc_stored_file **files, size_t *count, const char *dir, const char *name) {
    char *path = join(dir, name), *text;
    lc_stored_file *grown;
    size_t length = 0;
    if (!path) return -1;
    text = lc_read_file(path, &length);
    free(path);
    if (!text || length == 0) { free(text); return 0; }
    grown = realloc(*files, (*count + 1) * sizeof **files);
    if (!grown) { free(text); return -1; }
    *files = grown;
    grown[*count].text = text;
    grown[*count].name = malloc(strlen(name) + 1);
    if (!grown[*count].name) { free(text); return -1; }
    strcpy(grown[*count].name, name);
    (*count)++;
    return 0;
}

int lc_store_list(const char *dir, lc_stored_file **files, size_t *count) {
    *files = NULL;
    *count = 0;
#ifdef _WIN32
    {
        WIN32_FIND_DATAA found;
        char *pattern = join(dir, "*");
        HANDLE handle = pattern ? FindFirstFileA(pattern, &found) : INVALID_HANDLE_VALUE;
        free(pattern);
        if (handle == INVALID_HANDLE_VALUE) return 0;
        do {
            if (!(found.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) && is_candidate(found.cFileName)) add(files, count, dir, found.cFileName);
        } while (FindNextFileA(handle, &found));
        FindClose(handle);
    }
#else
    {
        DIR *folder = opendir(dir);
        struct dirent *entry;
        if (!folder) return errno == ENOENT ? 0 : -1;
        while ((entry = readdir(folder)) != NULL)
            if (is_candidate(entry->d_name)) add(files, count, dir, entry->d_name);
        closedir(folder);
    }
#endif
    return 0;
}

void lc_store_files_free(lc_stored_file *files, size_t count) {
    size_t i;
    for (i = 0; i < count; i++) { free(files[i].name); free(files[i].text); }
    free(files);
}

/* Creates the folder and its parents. */
static void make_dirs(const char *dir) {
    char *path = malloc(strlen(dir) + 1), *p;
    if (!path) return;
    strcpy(path, dir);
    for (p = path + 1; *p; p++) {
        if (*p == '/' || *p == '\\') { char c = *p; *p = 0; make_dir(path); *p = c; }
    }
    make_dir(path);
    free(path);
}

int lc_store_write(const char *dir, const char *name, const char *text) {
    char temporary_name[64];
    char *temporary, *target;
    FILE *file;
    size_t length = strlen(text);
    int ok;
    make_dirs(dir);
    /* Written beside and renamed, so that a crash never leaves half a file. */
    /* Per process: two programs of one machine may write the same store at once. */
    snprintf(temporary_name, sizeof temporary_name, ".%s.%ld.tmp", name, (long)process_id());
    temporary = join(dir, temporary_name);
    target = join(dir, name);
    if (!temporary || !target) { free(temporary); free(target); return -1; }
    file = fopen(temporary, "wb");
    ok = file && fwrite(text, 1, length, file) == length;
    if (file && fclose(file) != 0) ok = 0;
#ifdef _WIN32
    ok = ok && MoveFileExA(temporary, target, MOVEFILE_REPLACE_EXISTING);
#else
    ok = ok && rename(temporary, target) == 0;
#endif
    if (!ok) remove(temporary);
    free(temporary);
    free(target);
    return ok ? 0 : -1;
}

int lc_store_write_private(const char *dir, const char *name, const char *text) {
#ifdef _WIN32
    /* The folder under the user's profile is the user's own. */
    return lc_store_write(dir, name, text);
#else
    char temporary_name[64];
    char *temporary, *target;
    size_t length = strlen(text), done = 0;
    int fd, ok;
    make_dirs(dir);
    snprintf(temporary_name, sizeof temporary_name, ".%s.%ld.tmp", name, (long)process_id());
    temporary = join(dir, temporary_name);
    target = join(dir, name);
    if (!temporary || !target) { free(temporary); free(target); return -1; }
    /* Created 0600 (O_EXCL: never an existing file of other rights), written, then renamed over the old one. */
    remove(temporary);
    fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0600);
    ok = fd >= 0 && fchmod(fd, 0600) == 0;
    while (ok && done < length) {
        ssize_t n = write(fd, text + done, length - done);
        if (n <= 0) ok = 0;
        else done += (size_t)n;
    }
    if (fd >= 0 && close(fd) != 0) ok = 0;
    ok = ok && rename(temporary, target) == 0;
    if (!ok && fd >= 0) remove(temporary);
    free(temporary);
    free(target);
    return ok ? 0 : -1;
#endif
}

char *lc_store_token(const char *store_dir) {
    char *text = lc_store_read(store_dir, LC_TOKEN_FILE), *start, *end;
    if (!text) return NULL;
    for (start = text; *start == ' ' || *start == '\t' || *start == '\r' || *start == '\n'; start++) {}
    for (end = start + strlen(start); end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'); end--) {}
    *end = 0;
    if (!*start) { free(text); return NULL; }
    memmove(text, start, (size_t)(end - start) + 1);
    return text;
}

char *lc_store_read(const char *dir, const char *name) {
    char *path = join(dir, name), *text;
    if (!path) return NULL;
    text = lc_read_file(path, NULL);
    free(path);
    return text;
}

void lc_store_remove(const char *dir, const char *name) {
    char *path = join(dir, name);
    if (path) remove(path);
    free(path);
}

int lc_default_store_dir(const char *app_name, char *out, size_t out_size) {
    const char *base, *suffix = "";
    int written;
#if defined(_WIN32)
    base = getenv("APPDATA");
#elif defined(__APPLE__)
    base = getenv("HOME");
    suffix = "/Library/Application Support";
#else
    base = getenv("XDG_CONFIG_HOME");
    if (!base || !*base) { base = getenv("HOME"); suffix = "/.config"; }
#endif
    if (!app_name || !base || !*base) return -1;
    written = snprintf(out, out_size, "%s%s/%s/licenses", base, suffix, app_name);
    return written > 0 && (size_t)written < out_size ? 0 : -1;
}
