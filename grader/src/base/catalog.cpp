#include "base/catalog.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "base/inputs.hpp"
#include "base/settings.hpp"

// The text of grader/labs.json, written into a source file by CMake (cmake/LabManifest.cmake).
extern const char* const reduce_lab_manifest_text;

namespace reduce_lab::grader {

namespace {

using nlohmann::json;

// The bound of a lab whose variants are a tree's fan-in K: a barrier per step of K values.
constexpr const char* kBarriersPerFanInStep = "ceil(log_K(block size))";

std::runtime_error bad(const std::string& where, const std::string& what) {
  return std::runtime_error("grader/labs.json: " + where + ": " + what);
}

// A required field: a lab without it is an error, never a silent default (an unset minimum
// speedup once read as 1.0, and a plan missing its barrier bound left barriers ungraded).
const json& field(const json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) throw bad(where, std::string("'") + key + "' is missing");
  return object.at(key);
}

std::string text_field(const json& object, const char* key, const std::string& where) {
  const json& value = field(object, key, where);
  if (!value.is_string() || value.get<std::string>().empty())
    throw bad(where, std::string("'") + key + "' must be a non-empty string");
  return value.get<std::string>();
}

double number_field(const json& object, const char* key, const std::string& where) {
  const json& value = field(object, key, where);
  if (!value.is_number() || value.get<double>() < 0)
    throw bad(where, std::string("'") + key + "' must be a number, 0 or more");
  return value.get<double>();
}

// A count that may be null (not graded), but must be stated.
std::size_t optional_count(const json& object, const char* key, const std::string& where) {
  const json& value = field(object, key, where);
  if (value.is_null()) return 0;
  if (!value.is_number_unsigned()) throw bad(where, std::string("'") + key + "' must be a whole number or null");
  return value.get<std::size_t>();
}

template <typename T>
std::vector<T> names_field(const json& plan, const char* key, const std::string& where, const char* (*name_of)(T),
                           int count) {
  std::vector<T> chosen;
  for (const json& name : field(plan, key, where)) {
    bool known = false;
    for (int i = 0; i < count; ++i)
      if (name.is_string() && name.get<std::string>() == name_of(static_cast<T>(i))) {
        chosen.push_back(static_cast<T>(i));
        known = true;
      }
    if (!known) throw bad(where, std::string("'") + key + "' names " + name.dump() + ", which the kit does not know");
  }
  if (chosen.empty()) throw bad(where, std::string("'") + key + "' is empty");
  return chosen;
}


LabInfo parse_lab(const json& entry, int expected_number, const std::vector<std::string>& checks) {
  const std::string where = "lab entry " + std::to_string(expected_number);
  LabInfo lab;
  const json& number = field(entry, "number", where);
  if (!number.is_number_integer() || number.get<int>() != expected_number)
    throw bad(where, "'number' must be " + std::to_string(expected_number) + ": labs are numbered 1, 2, ... in order");
  lab.number = expected_number;
  lab.stem = text_field(entry, "stem", where);
  char prefix[8];
  std::snprintf(prefix, sizeof prefix, "%02d_", lab.number);
  if (lab.stem.rfind(prefix, 0) != 0) throw bad(where, "'stem' must start with " + std::string(prefix));
  lab.name = text_field(entry, "name", where);
  lab.figure = text_field(entry, "figure", where);
  lab.doc = text_field(entry, "doc", where);
  lab.revisit = text_field(entry, "revisit", where);
  const std::string kind = text_field(entry, "kind", where);
  if (kind == "multipass")
    lab.kind = LabKind::multipass;
  else if (kind == "single")
    lab.kind = LabKind::single;
  else if (kind == "generic")
    lab.kind = LabKind::generic;
  else if (kind == "rows")
    lab.kind = LabKind::rows;
  else
    throw bad(where, "'kind' must be multipass, single, generic or rows, not " + kind);
  const json& baseline = field(entry, "baseline", where);
  if (baseline == "cpu")
    lab.baseline = 0;
  else if (baseline.is_number_integer() && baseline.get<int>() >= 1 && baseline.get<int>() < lab.number)
    lab.baseline = baseline.get<int>();
  else
    throw bad(where, "'baseline' must be \"cpu\" or the number of an earlier lab, not " + baseline.dump());
  const json& gates = field(entry, "gates", where);
  lab.min_speedup = number_field(gates, "min_speedup", where + ", gates");
  if (gates.contains("min_bandwidth")) lab.min_bandwidth = number_field(gates, "min_bandwidth", where + ", gates");
  const json& plan = field(entry, "plan", where);
  lab.shared_tree_bound = field(plan, "shared_tree_bound", where + ", plan").get<bool>();
  if (plan.contains("keeps_order")) {
    // An order lab (12): its variants are trees, run with Order; these must keep order, the others not.
    lab.order_probe = true;
    const json& keeps = field(plan, "keeps_order", where + ", plan");
    if (!keeps.is_array()) throw bad(where + ", plan", "'keeps_order' must be a list of the variants that keep order");
    for (const json& value : keeps) {
      if (!value.is_number_unsigned()) throw bad(where + ", plan", "'keeps_order' lists variants, not " + value.dump());
      lab.keeps_order.push_back(value.get<unsigned>());
    }
  }
  if (lab.kind == LabKind::multipass) {
    // An order lab has no book model: its requests are not graded.
    if (!lab.order_probe) lab.book_model = text_field(plan, "book_model", where + ", plan");
  } else {
    lab.elements_per_block = optional_count(plan, "elements_per_block", where + ", plan");
    const json& barriers = field(plan, "max_barriers_per_block", where + ", plan");
    if (barriers == kBarriersPerFanInStep)
      lab.barriers_per_fan_in_step = true;
    else
      lab.max_barriers_per_block =
          static_cast<unsigned>(optional_count(plan, "max_barriers_per_block", where + ", plan"));
    if (plan.contains("sweep")) {
      const std::string at = where + ", plan, sweep";
      const json& sweep = field(plan, "sweep", where + ", plan");
      lab.sweep.name = text_field(sweep, "name", at);
      for (const char* key : {"values", "sizes"}) {
        const json& list = field(sweep, key, at);
        if (!list.is_array() || list.empty())
          throw bad(at, std::string("'") + key + "' must be a list of whole numbers above 0");
        for (const json& value : list) {
          if (!value.is_number_unsigned() || value.get<std::size_t>() == 0)
            throw bad(at, std::string("'") + key + "' must be a list of whole numbers above 0, not " + value.dump());
          if (std::string(key) == "values")
            lab.sweep.values.push_back(value.get<unsigned>());
          else
            lab.sweep.sizes.push_back(value.get<std::size_t>());
        }
      }
      lab.sweep.device_filling = field(sweep, "device_filling", at).get<bool>();
    }
    if (lab.kind == LabKind::generic || lab.kind == LabKind::rows) {
      lab.dtypes = names_field<DType>(plan, "types", where + ", plan", dtype_name, kDTypes);
      lab.ops = names_field<Op>(plan, "ops", where + ", plan", op_name, kOps);
    }
  }
  if (plan.contains("variants")) {
    const std::string at = where + ", plan, variants";
    const json& variants = field(plan, "variants", where + ", plan");
    lab.variant_name = text_field(variants, "name", at);
    const json& values = field(variants, "values", at);
    if (!values.is_array() || values.empty()) throw bad(at, "'values' must be a list of whole numbers above 0");
    lab.variants.clear();
    for (const json& value : values) {
      if (!value.is_number_unsigned() || value.get<unsigned>() == 0)
        throw bad(at, "'values' must be a list of whole numbers above 0, not " + value.dump());
      if (value.get<unsigned>() > 0xffffu) throw bad(at, "'values' must be below 65536, not " + value.dump());
      lab.variants.push_back(value.get<unsigned>());
    }
    if (variants.contains("block_sizes")) {
      const json& sizes = field(variants, "block_sizes", at);
      if (!sizes.is_array()) throw bad(at, "'block_sizes' must be a list of block sizes from 1 to 1024");
      for (const json& size : sizes) {
        if (!size.is_number_unsigned() || size.get<unsigned>() == 0 || size.get<unsigned>() > 1024)
          throw bad(at, "'block_sizes' must be a list of block sizes from 1 to 1024, not " + size.dump());
        lab.block_sizes.push_back(size.get<unsigned>());
      }
    }
  }
  if (lab.barriers_per_fan_in_step && lab.variant_name.empty())
    throw bad(where + ", plan", std::string("'max_barriers_per_block' is \"") + kBarriersPerFanInStep +
                                    "\", which needs 'variants' (the fan-in of each)");
  if (lab.order_probe) {
    lab.dtypes = names_field<DType>(plan, "types", where + ", plan", dtype_name, kDTypes);
    lab.ops = names_field<Op>(plan, "ops", where + ", plan", op_name, kOps);
    if (lab.variant_name.empty()) throw bad(where + ", plan", "'keeps_order' needs 'variants' (the trees)");
    for (unsigned tree : lab.keeps_order)
      if (std::find(lab.variants.begin(), lab.variants.end(), tree) == lab.variants.end())
        throw bad(where + ", plan", "'keeps_order' names " + std::to_string(tree) + ", which is not one of its variants");
  }
  if (entry.contains("not_graded")) {
    const json& not_graded = field(entry, "not_graded", where);
    if (!not_graded.is_object()) throw bad(where, "'not_graded' must map checks to the reason the lab has none");
    for (const auto& [check, reason] : not_graded.items()) {
      if (std::find(checks.begin(), checks.end(), check) == checks.end())
        throw bad(where + ", not_graded", "'" + check + "' is not one of the checks");
      if (!reason.is_string() || reason.get<std::string>().empty())
        throw bad(where + ", not_graded", "'" + check + "' must give the reason the lab has no such check");
      lab.not_graded.emplace_back(check, reason.get<std::string>());
    }
  }
  const json& points = field(entry, "points", where);
  for (const std::string& check : checks)
    lab.points.emplace_back(check, number_field(points, check.c_str(), where + ", points"));
  return lab;
}

struct Manifest {
  std::vector<LabInfo> labs;
  std::vector<std::string> checks;
};

const Manifest& manifest() {
  static const Manifest loaded = [] {
    Manifest m;
    m.labs = parse_manifest(reduce_lab_manifest_text, &m.checks);
    return m;
  }();
  return loaded;
}

}  // namespace

std::vector<LabInfo> parse_manifest(const std::string& text, std::vector<std::string>* checks_out) {
  json data;
  try {
    data = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(std::string("grader/labs.json is not valid JSON: ") + e.what());
  }
  std::vector<std::string> checks;
  for (const json& check : field(data, "checks", "the top level")) checks.push_back(check.get<std::string>());
  std::vector<LabInfo> result;
  const json& entries = field(data, "labs", "the top level");
  if (!entries.is_array() || entries.empty()) throw bad("the top level", "'labs' must be a list of labs");
  for (const json& entry : entries) result.push_back(parse_lab(entry, static_cast<int>(result.size()) + 1, checks));
  if (checks_out) *checks_out = checks;
  return result;
}

const char* manifest_text() { return reduce_lab_manifest_text; }

const std::vector<LabInfo>& labs() { return manifest().labs; }

int lab_count() { return static_cast<int>(labs().size()); }

bool is_lab(int number) { return number >= 1 && number <= lab_count(); }

int lab_key_number(std::string_view key) {
  if (key.size() < 4 || key.size() > 6 || key.substr(0, 3) != "lab" || key[3] == '0') return 0;
  int number = 0;
  for (char c : key.substr(3)) {
    if (c < '0' || c > '9') return 0;
    number = number * 10 + (c - '0');
  }
  return is_lab(number) ? number : 0;
}

const std::vector<std::string>& check_names() { return manifest().checks; }

bool has_check(int number, const std::string& check) {
  const auto& none = lab_info(number).not_graded;
  return std::none_of(none.begin(), none.end(), [&](const auto& entry) { return entry.first == check; });
}

const LabInfo& lab_info(int number) {
  if (!is_lab(number)) throw std::out_of_range("there is no lab " + std::to_string(number));
  return labs()[static_cast<std::size_t>(number - 1)];
}

std::string lab_title(int number) {
  return "lab " + std::to_string(number) + " (" + lab_info(number).name + ")";
}

std::string lab_row_title(const std::string& text) {
  // At least the 17 columns the tables had before a lab's name outgrew them.
  static const std::size_t width = [] {
    std::size_t widest = 16;
    for (const LabInfo& lab : labs()) widest = std::max(widest, std::to_string(lab.number).size() + 1 + lab.name.size());
    return widest + 1;
  }();
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

std::string lab_row_title(int number) { return lab_row_title(std::to_string(number) + " " + lab_info(number).name); }

std::string variant_text(int number, unsigned variant) {
  const LabInfo& lab = lab_info(number);
  if (variant == 0 || lab.variant_name.empty()) return std::string();
  const std::string text = lab.variant_name + " = " + std::to_string(variant_value(variant));
  if (variant_block_size(variant) == 0) return text;
  return text + ", " + std::to_string(variant_block_size(variant)) + " threads a block";
}

unsigned with_block_size(unsigned variant, unsigned block_size) { return variant_value(variant) | block_size << 16; }
unsigned variant_value(unsigned variant) { return variant & 0xffffu; }
unsigned variant_block_size(unsigned variant) { return variant >> 16; }

std::string lab_source(int number) {
  return settings().source_folder + "/" + lab_info(number).stem + ".cu";
}

}  // namespace reduce_lab::grader
