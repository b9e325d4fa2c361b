#include "checks/counter_fields.hpp"

#include "checks/book_models.hpp"

namespace reduce_lab::grader {

namespace {

constexpr const char* kJsonKinds[kAccessKinds] = {"load", "store", "atomic"};
constexpr const char* kShortKinds[kAccessKinds] = {"ld", "st", "atom"};

}  // namespace

nlohmann::json counts_json(const Counters& c) {
  nlohmann::json counts = {{"simd_efficiency", simd_efficiency(c)}};
  for (const CounterField& field : kCounterFields) {
    nlohmann::json& into = field.space == Space::shared ? counts["shared"][field.name] : counts[field.name];
    if (!field.per_kind) {
      into = field.get(c, 0);
      continue;
    }
    for (int k = 0; k < kAccessKinds; ++k) into[kJsonKinds[k]] = field.get(c, k);
  }
  return counts;
}

std::string counts_dump_text(const Counters& c) {
  std::string text;
  for (int k = 0; k < kAccessKinds; ++k) {
    text += std::string(" ") + kShortKinds[k] + ":";
    const char* separator = "";
    for (const CounterField& field : kCounterFields)
      if (field.dump && field.per_kind) {
        text += std::string(separator) + field.dump + "=" + std::to_string(field.get(c, k));
        separator = ",";
      }
  }
  for (const CounterField& field : kCounterFields)
    if (field.dump && !field.per_kind) text += std::string(" ") + field.dump + "=" + std::to_string(field.get(c, 0));
  return text;
}

std::string counts_profile_text(const Counters& c) {
  std::string text;
  for (const CounterField& field : kCounterFields)
    for (int k = 0; k < kAccessKinds; ++k)
      if (field.profiled & (1u << k))
        text += std::string(" ") + (field.space == Space::shared ? "shared_" : "global_") + kShortKinds[k] + "_" +
                field.name + "=" + std::to_string(field.get(c, k));
  return text;
}

}  // namespace reduce_lab::grader
