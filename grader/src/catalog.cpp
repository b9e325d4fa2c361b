#include "catalog.hpp"

#include <cstdlib>
#include <stdexcept>

namespace reduce_lab::grader {

namespace {
const LabInfo kCatalog[kLabs] = {
    {1, "simple", "01_simple", "docs/01-simple.md", "Fig. 10.6"},
    {2, "convergent", "02_convergent", "docs/02-convergent.md", "Fig. 10.9"},
    {3, "shared-memory", "03_shared_memory", "docs/03-shared-memory.md", "Fig. 10.11"},
    {4, "segmented", "04_segmented", "docs/04-segmented.md", "Fig. 10.13"},
    {5, "coarsened", "05_coarsened", "docs/05-coarsened.md", "Fig. 10.15"},
    {6, "warp-unrolled", "06_warp_unrolled", "docs/06-warp-unrolled.md", "Fig. 10.15 + warp shuffles"},
    {7, "templated", "07_templated", "docs/07-templated.md", "templated, fully unrolled"},
};
}  // namespace

const LabInfo& lab_info(int number) {
  if (number < 1 || number > kLabs) throw std::out_of_range("there is no lab " + std::to_string(number));
  return kCatalog[number - 1];
}

std::string lab_title(int number) {
  return "lab " + std::to_string(number) + " (" + lab_info(number).name + ")";
}

std::string lab_source(int number) {
  const char* folder = std::getenv("REDUCE_LAB_SOURCE_FOLDER");  // set by CTest: labs or solutions
  return std::string(folder && *folder ? folder : "labs") + "/" + lab_info(number).stem + ".cu";
}

}  // namespace reduce_lab::grader
