#include "sum_spread.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>
#include <vector>

#include "base/catalog.hpp"
#include "base/text.hpp"
#include "measure/cpu_loop.hpp"
#include "base/inputs.hpp"
#include "run/lab_runner.hpp"
#include "run/modules.hpp"
#include "base/reference.hpp"

namespace reduce_lab::grader {

namespace {

// The labs whose float sums the spread compares; lab 7 also in double.
constexpr int kLabs[] = {1, 2, 4, 7};

}  // namespace

nlohmann::json sum_spread(std::size_t n, int runs) {
  const HostArray floats = make_input(Pattern::uniform, DType::f32, n);
  std::vector<float> x(n);
  std::memcpy(x.data(), floats.data(), n * sizeof(float));
  HostArray doubles;
  doubles.dtype = DType::f64;
  doubles.n = n;
  doubles.bytes.resize(n * sizeof(double));
  for (std::size_t i = 0; i < n; ++i) {
    const double value = x[i];
    std::memcpy(doubles.bytes.data() + i * sizeof(double), &value, sizeof value);
  }
  // Kahan-compensated long double, not reference()'s pairwise long double: whose error, though far
  // below any tolerance, can approach the errors of the double sums measured here (1e-12).
  long double sum = 0, carry = 0;
  double sum_abs = 0;
  for (float value : x) {
    const long double y = static_cast<long double>(value) - carry;
    const long double t = sum + y;
    carry = (t - sum) - y;
    sum = t;
    sum_abs += std::fabs(value);
  }
  Reference exact;
  exact.value = static_cast<double>(sum);
  exact.sum_abs = sum_abs;
  nlohmann::json spread = {{"n", n},           {"runs", runs},
                           {"exact", exact.value}, {"sum_abs", sum_abs},
                           {"tolerance", {{"float", tolerance(exact, DType::f32, n)}, {"double", tolerance(exact, DType::f64, n)}}},
                           {"rows", nlohmann::json::array()},     {"left_out", nlohmann::json::array()}};
  auto add = [&](const std::string& name, DType dtype, const std::vector<double>& results) {
    double largest = 0;
    for (double value : results) largest = std::max(largest, std::fabs(value - exact.value));
    spread["rows"].push_back({{"name", name},
                              {"type", dtype_name(dtype)},
                              {"results", results},
                              {"distinct", std::set<double>(results.begin(), results.end()).size()},
                              {"largest_error", largest},
                              {"in_tolerance", largest / tolerance(exact, dtype, n)}});
  };
  add("CPU loop (Fig. 10.1)", DType::f32, {static_cast<double>(sequential_sum(x.data(), n))});
  double in_double = 0;
  for (float value : x) in_double += value;
  add("CPU loop (Fig. 10.1)", DType::f64, {in_double});
  for (int lab : kLabs) {
    const LoadedLab loaded = load_lab(lab, Flavor::plain);
    if (!loaded) {
      spread["left_out"].push_back({{"lab", lab}, {"why", loaded.problem.substr(0, loaded.problem.find('\n'))}});
      continue;
    }
    for (DType dtype : {DType::f32, DType::f64}) {
      if (!loaded.info->supports(dtype, Op::sum)) continue;
      LabRunner runner(loaded.info, dtype, Op::sum, Flavor::plain);
      std::vector<double> results;
      for (int run = 0; run < runs; ++run) {
        const RunOutcome outcome = runner.reduce(dtype == DType::f32 ? floats : doubles);
        if (!outcome.ran || outcome.todo) {
          spread["left_out"].push_back(
              {{"lab", lab}, {"why", outcome.todo ? "not implemented yet" : outcome.error.substr(0, outcome.error.find('\n'))}});
          results.clear();
          break;
        }
        results.push_back(outcome.value);
      }
      if (!results.empty()) add(lab_title(lab), dtype, results);
    }
  }
  return spread;
}

std::string sum_spread_table(const nlohmann::json& spread) {
  std::ostringstream out;
  out << "The same " << size_text(spread["n"].get<std::size_t>()) << " floats in [-1, 1), summed "
      << spread["runs"].get<int>() << " times each; exact sum " << format("%.9g", spread["exact"].get<double>())
      << ", sum of |x| " << format("%.6g", spread["sum_abs"].get<double>()) << "\n"
      << "the kit's tolerance, 2 x ceil(log2 n) x eps x sum|x|: float " << format("%.3g", spread["tolerance"]["float"].get<double>())
      << ", double " << format("%.3g", spread["tolerance"]["double"].get<double>()) << "\n";
  char line[200];
  std::snprintf(line, sizeof line, "%-28s %-7s %18s %9s %13s %13s\n", "what", "type", "first result", "distinct",
                "largest error", "of tolerance");
  out << line;
  for (const nlohmann::json& row : spread["rows"]) {
    std::snprintf(line, sizeof line, "%-28s %-7s %18.10g %9zu %13.3g %12.4f%%\n", row["name"].get<std::string>().c_str(),
                  row["type"].get<std::string>().c_str(), row["results"].at(0).get<double>(),
                  row["distinct"].get<std::size_t>(), row["largest_error"].get<double>(),
                  100 * row["in_tolerance"].get<double>());
    out << line;
  }
  for (const nlohmann::json& left : spread["left_out"])
    out << "lab " << left["lab"].get<int>() << " left out: " << left["why"].get<std::string>() << "\n";
  return out.str();
}

}  // namespace reduce_lab::grader
