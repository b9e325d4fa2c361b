// A timed sample's rows checked where the sample left them (measure/row_check.hpp: on the GPU in
// a GPU build) get first_wrong_row()'s answer on the host, word for word: every row right, the
// first of two wrong rows, NaN, an integer off by one, the changed row held to its new value, in
// each type, and past the rows one launch of the GPU's check covers at once.
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "base/inputs.hpp"
#include "base/reference.hpp"
#include "catch_compat.hpp"
#include "measure/row_check.hpp"
#include "run/device.hpp"

using namespace reduce_lab::grader;
using reduce_lab::DType;
using reduce_lab::Op;

namespace {

// `value` as a result of type `dtype` holds it: what the host's check reads back.
double in_type(double value, DType dtype) {
  return dtype == DType::f32 ? static_cast<double>(static_cast<float>(value)) : value;
}

// Each row's expected value in the results' type: right by compare()'s rule.
std::vector<double> right_results(const std::vector<Reference>& rows, DType dtype) {
  std::vector<double> values;
  for (const Reference& ref : rows) values.push_back(in_type(ref.value, dtype));
  return values;
}

DeviceBuffer on_device(const std::vector<double>& values, DType dtype) {
  const std::size_t element = dtype_bytes(dtype);
  std::vector<unsigned char> bytes(values.size() * element);
  for (std::size_t r = 0; r < values.size(); ++r) {
    unsigned char* at = bytes.data() + r * element;
    if (dtype == DType::f32) {
      const float v = static_cast<float>(values[r]);
      std::memcpy(at, &v, sizeof v);
    } else if (dtype == DType::f64) {
      std::memcpy(at, &values[r], sizeof(double));
    } else {
      const int v = static_cast<int>(values[r]);
      std::memcpy(at, &v, sizeof v);
    }
  }
  DeviceBuffer buffer(values.size(), element);
  buffer.upload(bytes.data(), bytes.size());
  return buffer;
}

// The device's answer and the host's for the same results, which must agree.
void agree(const RowCheck& check, const std::vector<Reference>& rows, const std::vector<double>& values, DType dtype,
           std::size_t columns, std::size_t changed, const Reference& changed_to, bool right) {
  const std::optional<std::string> device = check.first_wrong(on_device(values, dtype), changed, changed_to);
  const std::optional<std::string> host = first_wrong_row(values, rows, dtype, columns, changed, &changed_to);
  INFO((device ? *device : std::string("right")) << " / " << (host ? *host : std::string("right")));
  CHECK(device.has_value() == !right);
  CHECK(host.has_value() == !right);
  CHECK(device == host);
}

}  // namespace

TEST_CASE("kit row check") {
  for (const DType dtype : {DType::f32, DType::f64, DType::i32}) {
    INFO(dtype_name(dtype));
    const std::size_t columns = 5;
    const HostArray matrix = make_matrix(dtype == DType::i32 ? Pattern::integers : Pattern::uniform, dtype, {100003, columns});
    const std::vector<Reference> rows = row_references(matrix, Op::sum);
    const RowCheck check(rows, dtype, columns);
    REQUIRE(check.rows() == rows.size());
    const std::vector<double> right = right_results(rows, dtype);
    agree(check, rows, right, dtype, columns, 0, rows[0], true);

    // Two wrong rows: the lower one is named, whichever the device reached first.
    std::vector<double> wrong = right;
    wrong[77777] = in_type(wrong[77777] + 1000, dtype);
    wrong[4321] = in_type(wrong[4321] - (dtype == DType::i32 ? 1 : 1000), dtype);
    agree(check, rows, wrong, dtype, columns, 0, rows[0], false);

    // The changed row is held to its new value, not its old one.
    Reference changed_to = rows[9];
    changed_to.value += 64;
    changed_to.sum_abs += 64;
    agree(check, rows, right, dtype, columns, 9, changed_to, false);
    std::vector<double> changed = right;
    changed[9] = in_type(changed_to.value, dtype);
    agree(check, rows, changed, dtype, columns, 9, changed_to, true);

    if (dtype != DType::i32) {
      std::vector<double> nan = right;
      nan[100002] = std::numeric_limits<double>::quiet_NaN();
      agree(check, rows, nan, dtype, columns, 0, rows[0], false);
    }
  }
#if !defined(REDUCE_LAB_EMU)
  // More rows than one launch of the GPU's check has threads (65536 blocks of 256): the last row
  // is reached too. (The emulator's check is a loop on the host; a gigabyte of references would
  // test nothing more there.)
  const std::size_t many = 65536ull * 256 + 3;
  const HostArray column = make_matrix(Pattern::uniform, DType::f32, {many, 1});
  const std::vector<Reference> rows = row_references(column, Op::sum);
  const RowCheck check(rows, DType::f32, 1);
  std::vector<double> values = right_results(rows, DType::f32);
  agree(check, rows, values, DType::f32, 1, 0, rows[0], true);
  values[many - 1] = in_type(values[many - 1] + 1, DType::f32);
  agree(check, rows, values, DType::f32, 1, 0, rows[0], false);
#endif
}
