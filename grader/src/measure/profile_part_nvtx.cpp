#include <nvtx3/nvToolsExt.h>

#include "measure/profile_part.hpp"

namespace reduce_lab::grader {

ProfilePart::ProfilePart(unsigned part) {
  nvtxRangePushA((std::string(kProfilePartPrefix) + std::to_string(part)).c_str());
}

ProfilePart::~ProfilePart() { nvtxRangePop(); }

}  // namespace reduce_lab::grader
