#include "supervision.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace reduce_lab::grader::supervision {

namespace {

struct Page {
  unsigned verdict;
  unsigned has_case;
  char label[500];
};

Page* map(int fd) {
  void* address = mmap(nullptr, sizeof(Page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return address == MAP_FAILED ? nullptr : static_cast<Page*>(address);
}

Page*& mapped() {
  static Page* page = [] {
    const char* text = std::getenv("REDUCE_LAB_SUPERVISOR_FD");
    return text && *text ? map(std::atoi(text)) : nullptr;
  }();
  return page;
}

}  // namespace

bool create() {
  const char* folder = std::getenv("TMPDIR");
  std::string path = std::string(folder && *folder ? folder : "/tmp") + "/reduce_lab_supervisor.XXXXXX";
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
  setenv("REDUCE_LAB_SUPERVISOR_FD", std::to_string(fd).c_str(), 1);
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

Snapshot read() {
  Snapshot snapshot;
  const Page* page = mapped();
  if (page == nullptr) return snapshot;
  snapshot.verdict = page->verdict != 0;
  snapshot.has_case = page->has_case != 0;
  snapshot.label.assign(page->label, strnlen(page->label, sizeof page->label));
  return snapshot;
}

}  // namespace reduce_lab::grader::supervision
