#include "measure/ncu_turn.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace reduce_lab::grader {

namespace {

int open_lock() {
  const std::string path = NcuTurn::lock_path();
  // Every user's grader shares the one profiler: the file is writable by all (umask aside).
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd >= 0) (void)fchmod(fd, 0666);
  return fd >= 0 ? fd : open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

}  // namespace

std::string NcuTurn::lock_path() {
  const char* folder = std::getenv("TMPDIR");
  return std::string(folder != nullptr && *folder != '\0' ? folder : "/tmp") + "/reduce-lab-ncu.lock";
}

NcuTurn::NcuTurn() : fd_(open_lock()) {
  if (fd_ < 0) return;
  while (flock(fd_, LOCK_EX) != 0) {
    if (errno != EINTR) {
      close(fd_);
      fd_ = -1;
      return;
    }
  }
}

NcuTurn::~NcuTurn() {
  if (fd_ >= 0) close(fd_);  // closing releases the lock
}

bool NcuTurn::taken_elsewhere() {
  const int fd = open_lock();
  if (fd < 0) return false;
  const bool taken = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);
  return taken;
}

}  // namespace reduce_lab::grader
