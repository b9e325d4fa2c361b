// The seven labs by number: where their source and docs live, what the book calls them.
#pragma once

#include <string>

namespace reduce_lab::grader {

struct LabInfo {
  int number;
  const char* name;     // as in CTest and the table: "shared-memory"
  const char* stem;     // file stem: labs/<stem>.cu, solutions/<stem>.cu
  const char* doc;      // docs/<doc>
  const char* figure;   // the book figure the kernel implements
};

constexpr int kLabs = 7;

// Number 1..7; throws for anything else.
const LabInfo& lab_info(int number);

// "lab 3 (shared-memory)"
std::string lab_title(int number);

// Where the lab being graded lives, for messages: "labs/03_shared_memory.cu".
std::string lab_source(int number);

}  // namespace reduce_lab::grader
