#include "run/supervision.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/settings.hpp"

namespace reduce_lab::grader::supervision {

namespace {

struct Page {
  unsigned verdict;
  unsigned has_case;
  char label[500];
  unsigned stopped;
  char stop_summary[500];
  char stop_message[6000];
};

Page* map(int fd) {
  void* address = mmap(nullptr, sizeof(Page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return address == MAP_FAILED ? nullptr : static_cast<Page*>(address);
}

Page*& mapped() {
  static Page* page = [] {
    const int fd = settings().supervisor_fd;
    return fd >= 0 ? map(fd) : nullptr;
  }();
  return page;
}

}  // namespace

bool create() {
  std::string path = settings().temp_dir + "/reduce_lab_supervisor.XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) return false;
  unlink(path.c_str());  // nothing to clean up however the processes end
  if (ftruncate(fd, sizeof(Page)) != 0) {
    close(fd);
    return false;
  }
  Page* page = map(fd);
  if (page == nullptr) {
    close(fd);
    return false;
  }
  std::memset(page, 0, sizeof(Page));
  mapped() = page;
  set_environment("REDUCE_LAB_SUPERVISOR_FD", std::to_string(fd));
  return true;
}

void note_case(const std::string& label) {
  Page* page = mapped();
  if (page == nullptr) return;
  std::snprintf(page->label, sizeof page->label, "%s", label.c_str());
  page->has_case = 1;
}

void note_verdict() {
  if (Page* page = mapped()) page->verdict = 1;
}

bool note_stop(const std::string& summary, const std::string& message) {
  Page* page = mapped();
  if (page == nullptr) return false;
  std::snprintf(page->stop_summary, sizeof page->stop_summary, "%s", summary.c_str());
  std::snprintf(page->stop_message, sizeof page->stop_message, "%s", message.c_str());
  page->stopped = 1;
  return true;
}

Snapshot read() {
  Snapshot snapshot;
  const Page* page = mapped();
  if (page == nullptr) return snapshot;
  snapshot.verdict = page->verdict != 0;
  snapshot.has_case = page->has_case != 0;
  snapshot.label.assign(page->label, strnlen(page->label, sizeof page->label));
  snapshot.stopped = page->stopped != 0;
  snapshot.stop_summary.assign(page->stop_summary, strnlen(page->stop_summary, sizeof page->stop_summary));
  snapshot.stop_message.assign(page->stop_message, strnlen(page->stop_message, sizeof page->stop_message));
  return snapshot;
}

}  // namespace reduce_lab::grader::supervision
