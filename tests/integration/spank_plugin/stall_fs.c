// A FUSE file system that never answers: the stall a user's own FUSE mount (or a hung
// network file system) puts in front of whoever writes there. Its root holds one directory,
// `stall`; a name looked up in it does not exist, and creating, opening or writing a file
// there is never answered, so the caller waits for as long as this process lives. Killing
// this process (or unmounting) ends the connection and every waiting call fails with
// ENOTCONN.
//
//   hetscale-test-stall-fs MOUNTPOINT    (in the foreground; mounted with allow_other)
//
// Used by the plugin's integration tests (task_times_stall_test.cpp).
#define FUSE_USE_VERSION 34

#include <errno.h>
#include <fuse_lowlevel.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { kRootIno = 1, kStallIno = 2 };

static void fill_dir(struct stat* st, fuse_ino_t ino) {
  memset(st, 0, sizeof *st);
  st->st_ino = ino;
  st->st_mode = S_IFDIR | 01777;
  st->st_nlink = 2;
}

static void stall_lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (parent == kRootIno && strcmp(name, "stall") == 0) {
    struct fuse_entry_param entry;
    memset(&entry, 0, sizeof entry);
    entry.ino = kStallIno;
    fill_dir(&entry.attr, kStallIno);
    fuse_reply_entry(req, &entry);
    return;
  }
  fuse_reply_err(req, ENOENT);
}

static void stall_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info* fi) {
  (void)fi;
  if (ino != kRootIno && ino != kStallIno) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  struct stat st;
  fill_dir(&st, ino);
  fuse_reply_attr(req, &st, 0);
}

// Never answered: the request stays with this process until it ends.
static void stall_create(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode,
                         struct fuse_file_info* fi) {
  (void)req, (void)parent, (void)name, (void)mode, (void)fi;
}
static void stall_mknod(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev) {
  (void)req, (void)parent, (void)name, (void)mode, (void)rdev;
}
static void stall_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info* fi) {
  (void)req, (void)ino, (void)fi;
}
static void stall_write(fuse_req_t req, fuse_ino_t ino, const char* buf, size_t size, off_t off,
                        struct fuse_file_info* fi) {
  (void)req, (void)ino, (void)buf, (void)size, (void)off, (void)fi;
}

static const struct fuse_lowlevel_ops kOps = {
    .lookup = stall_lookup,
    .getattr = stall_getattr,
    .mknod = stall_mknod,
    .open = stall_open,
    .write = stall_write,
    .create = stall_create,
};

int main(int argc, char* argv[]) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MOUNTPOINT\n", argv[0]);
    return 2;
  }
  char* fuse_argv[] = {argv[0], "-o", "allow_other", NULL};
  struct fuse_args args = FUSE_ARGS_INIT(3, fuse_argv);
  struct fuse_session* session = fuse_session_new(&args, &kOps, sizeof kOps, NULL);
  if (session == NULL) return 1;
  int rc = 1;
  if (fuse_set_signal_handlers(session) == 0) {
    if (fuse_session_mount(session, argv[1]) == 0) {
      printf("mounted %s\n", argv[1]);
      fflush(stdout);
      rc = fuse_session_loop(session) == 0 ? 0 : 1;
      fuse_session_unmount(session);
    }
    fuse_remove_signal_handlers(session);
  }
  fuse_session_destroy(session);
  return rc;
}
