#include "checks/rows_speed_check.hpp"

#include <algorithm>
#include <cmath>
#include <future>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <cstring>

#include "base/catalog.hpp"
#include "checks/check_messages.hpp"
#include "run/device.hpp"
#include "base/faults.hpp"
#include "checks/hints.hpp"
#include "run/lab_runner.hpp"
#include "base/reference.hpp"
#include "measure/phase_times.hpp"
#include "measure/row_check.hpp"
#include "measure/run_once.hpp"
#include "base/settings.hpp"
#include "checks/speed_check.hpp"
#include "checks/speed_gate.hpp"
#include "measure/timing.hpp"
#if defined(REDUCE_LAB_HAVE_CUB)
#include "measure/cub_baseline.hpp"
#endif

namespace reduce_lab::grader {

namespace {

struct Matrix {
  HostArray host;
  std::unique_ptr<RowCheck> by_rows;  // each row's reference, checked where a sample leaves its rows
  std::unique_ptr<RowCheck> whole;    // every element's, for the baseline that reduces them as one vector
  DeviceBuffer device;
};

// A matrix drawn for the speed test, with its rows' references.
struct Drawn {
  HostArray host;
  std::vector<Reference> rows;
};

Drawn draw(Shape shape, unsigned variant) {
  Drawn drawn;
  drawn.host = make_matrix(Pattern::uniform, DType::f32, shape, variant);
  drawn.rows = row_references(drawn.host, Op::sum);
  return drawn;
}

Matrix timed_matrix(Drawn drawn) {
  Matrix m;
  const std::size_t columns = drawn.host.n / drawn.host.rows;
  m.by_rows = std::make_unique<RowCheck>(std::move(drawn.rows), DType::f32, columns);
  m.whole = std::make_unique<RowCheck>(std::vector<Reference>{reference(drawn.host, Op::sum)}, DType::f32,
                                       drawn.host.n);
  m.host = std::move(drawn.host);
  return m;
}

// The timed inputs at `shape`: input k is the matrix of variant k, and input 0 is `first`, the one
// the lab was verified on (drawn once, not again here).
std::vector<Matrix> make_matrices(Shape shape, Drawn first) {
  std::vector<Matrix> matrices(kTimedInputs);
  {
    const Phase phase("inputs");
    std::vector<std::future<void>> pending;
    for (int k = 0; k < kTimedInputs; ++k)
      pending.push_back(std::async(std::launch::async, [&, k] {
        matrices[static_cast<std::size_t>(k)] =
            timed_matrix(k == 0 ? std::move(first) : draw(shape, static_cast<unsigned>(k)));
      }));
    for (auto& done : pending) done.get();
  }
  for (Matrix& m : matrices) {
    m.device = DeviceBuffer(shape.elements(), sizeof(float));
    m.device.upload(m.host.data(), shape.elements() * sizeof(float));
  }
  return matrices;
}

// One module timed on a matrix: as rows (the row lab), or as one vector of all its elements
// (the baseline lab). Before each sample (untimed) it copies one of the inputs into the buffer
// the lab is given, changes one element at a random place, and flushes the L2; after each
// sample (untimed) it checks every result.
class TimedMatrix {
 public:
  TimedMatrix(const ModuleInfo* module, std::vector<Matrix>& inputs, Shape shape, bool as_rows, std::uint64_t seed)
      : runner_(module, DType::f32, Op::sum), inputs_(inputs), shape_(shape), as_rows_(as_rows), rng_(seed) {
    runner_.allocate_for_timing(shape.elements(), as_rows ? shape.rows : 1);
    // A change larger than four tolerances and four results apart: no sample's result is
    // within the tolerance of another's.
    double largest_tolerance = 1.0, largest_value = 0;
    for (const Matrix& m : inputs) {
      largest_tolerance = std::max(largest_tolerance, check_of(m).largest_allowed());
      largest_value = std::max(largest_value, check_of(m).largest_value());
    }
    step_ = 4 * largest_tolerance + 4 * largest_value;
  }

  Contender contender(const std::string& name, L2Flush& flush) {
    return {name, [this, &flush] { prepare(flush); }, [this, name] { return timed(name); }};
  }

 private:
  std::size_t columns() const { return as_rows_ ? shape_.columns : shape_.elements(); }
  const RowCheck& check_of(const Matrix& m) const { return as_rows_ ? *m.by_rows : *m.whole; }

  void prepare(L2Flush& flush) {
    const Matrix& input = inputs_[static_cast<std::size_t>(sample_ % kTimedInputs)];
    runner_.load(input.device);
    const std::size_t index = std::uniform_int_distribution<std::size_t>(0, shape_.elements() - 1)(rng_);
    const float value = static_cast<float>(((rng_() & 1) ? 1 : -1) * step_ * (sample_ + 2));
    float old;
    std::memcpy(&old, static_cast<const char*>(input.host.data()) + index * sizeof(float), sizeof old);
    runner_.set_input_element(index, &value);
    changed_ = as_rows_ ? index / shape_.columns : 0;
    check_ = &check_of(input);
    changed_to_ = check_->expected(changed_);
    changed_to_.value += static_cast<double>(value) - old;
    changed_to_.sum_abs += std::fabs(static_cast<double>(value)) - std::fabs(static_cast<double>(old));
    flush();
  }

  double timed(const std::string& name) {
    const double ms = time_device_ms([this] { runner_.enqueue(); });
    const RunOutcome outcome = runner_.finish_on_device();
    if (!outcome.ran) throw std::runtime_error(outcome.error);
    if (auto wrong = check_->first_wrong(runner_.timed_result(), changed_, changed_to_))
      throw TimedWrong{name, sample_, *wrong};
    ++sample_;
    return ms;
  }

  LabRunner runner_;
  std::vector<Matrix>& inputs_;
  Shape shape_;
  bool as_rows_;
  std::mt19937_64 rng_;
  double step_ = 1;
  int sample_ = 0;
  const RowCheck* check_ = nullptr;  // the sample's input's
  std::size_t changed_ = 0;
  Reference changed_to_;
};

#if defined(REDUCE_LAB_HAVE_CUB)
// CUB's segmented sum of the pristine inputs, every result checked.
class TimedCub {
 public:
  TimedCub(std::vector<Matrix>& inputs, Shape shape)
      : inputs_(inputs), shape_(shape), cub_(shape.rows, shape.columns), out_(shape.rows, sizeof(float)) {}

  Contender contender(L2Flush& flush) {
    return {"CUB DeviceSegmentedReduce::Sum", [&flush] { flush(); }, [this] { return timed(); }};
  }

 private:
  double timed() {
    const Matrix& input = inputs_[static_cast<std::size_t>(sample_ % kTimedInputs)];
    const double ms = time_device_ms([&] {
      cub_.enqueue(static_cast<const float*>(input.device.data()), static_cast<float*>(out_.data()));
    });
    // No row changed: row 0 is held to its own reference.
    if (auto wrong = input.by_rows->first_wrong(out_, 0, input.by_rows->expected(0)))
      throw TimedWrong{"CUB", sample_, *wrong};
    ++sample_;
    return ms;
  }

  std::vector<Matrix>& inputs_;
  Shape shape_;
  CubRowSum cub_;
  DeviceBuffer out_;
  int sample_ = 0;
};
#endif

struct ShapeTimes {
  Shape shape;
  double lab_ms = 0, baseline_ms = 0;
  std::optional<double> cub_ms;
};

// The bytes a contender reads and writes on one matrix, as the copy bandwidth counts them: the
// matrix and a float a row for lab 8 and CUB, the same elements and one float for lab 7's one
// vector. At 7 columns the rows' outputs are an eighth of the bytes.
double rows_bytes(Shape shape) { return 4.0 * static_cast<double>(shape.elements() + shape.rows); }
double vector_bytes(Shape shape) { return 4.0 * static_cast<double>(shape.elements() + 1); }

// Times the lab, the baseline and (where built) CUB on one matrix, interleaved.
// `first` is the matrix of variant 0 at `shape`, already drawn.
ShapeTimes time_shape(const ModuleInfo* lab, const ModuleInfo* baseline, Shape shape, Drawn first, int samples,
                      nlohmann::json& figures) {
  std::vector<Matrix> inputs = make_matrices(shape, std::move(first));
  L2Flush flush;
  const double bytes = rows_bytes(shape);
  std::vector<Contender> contenders;
  std::unique_ptr<TimedMatrix> timed_lab, timed_baseline;
  timed_lab = std::make_unique<TimedMatrix>(lab, inputs, shape, true, process_seed() ^ 0x5eed);
  contenders.push_back(timed_lab->contender(lab_title(lab->lab), flush));
  if (baseline) {
    timed_baseline = std::make_unique<TimedMatrix>(baseline, inputs, shape, false, process_seed() ^ 0xba5e);
    contenders.push_back(timed_baseline->contender("your " + lab_title(baseline->lab) + ", as one vector", flush));
  }
#if defined(REDUCE_LAB_HAVE_CUB)
  TimedCub cub(inputs, shape);
  contenders.push_back(cub.contender(flush));
#endif
  std::vector<const Contender*> order;
  for (const Contender& c : contenders) order.push_back(&c);
  const std::vector<std::vector<double>> ms = take_samples(order, samples);
  ShapeTimes times{shape};
  times.lab_ms = median(ms[0]);
  nlohmann::json entry = {{"rows", shape.rows}, {"columns", shape.columns}, {"lab", sample_figures(ms[0], bytes)}};
  std::size_t next = 1;
  if (baseline) {
    times.baseline_ms = median(ms[next]);
    entry["baseline"] = sample_figures(ms[next++], vector_bytes(shape));
    entry["ratio"] = times.baseline_ms / times.lab_ms;
  }
  if (next < ms.size()) {
    times.cub_ms = median(ms[next]);
    entry["cub"] = sample_figures(ms[next], bytes);
    entry["cub_ratio"] = *times.cub_ms / times.lab_ms;
  }
  figures["shapes"].push_back(entry);
  return times;
}

std::string gbs(double bytes, double ms) { return format("%.0f GB/s", bytes / (ms * 1e-3) / 1e9); }

}  // namespace

std::vector<Shape> rows_speed_shapes(std::size_t elements) {
  std::size_t side = 1;
  while (side * side * 4 <= elements) side *= 2;  // the largest power-of-two square that fits
  return {{elements / 7, 7}, {side, side}, {3, elements / 3}};
}

Verdict check_rows_speedup(int lab) {
  SpeedSetup setup = prepare_speed_test(lab);
  if (setup.refusal) return *setup.refusal;
  nlohmann::json& figures = setup.figures;
  const ModuleInfo* lab_module = setup.lab.info;
  const ModuleInfo* baseline_module = setup.baseline.info;
  const double required = figures["thresholds"]["min_speedup"].get<double>();
  auto failed = [&figures](const std::string& summary, const std::string& message) {
    return fail(summary, message, figures);
  };
  const int base_lab = lab_info(lab).baseline;
  try {
    const std::size_t elements = benchmark_floats();
    const std::vector<Shape> shapes = rows_speed_shapes(elements);
    figures["n"] = elements;
    figures["device"] = device_facts().name;
    // Right at these shapes before its speed means anything (labN.correctness ran smaller ones),
    // and running there the kernels its counted build runs. Every timed shape is compared, each
    // on the lab's first run of it: the shape picks the mapping, so one shape's kernels say
    // nothing of another's, and the counted build runs each in well under a second on a GPU.
    std::string compared, last_note;  // what the builds' comparison found, for the message
    std::vector<Drawn> verified;  // each shape's matrix, the first of its timed inputs
    for (const Shape& shape : shapes) {
      {
        const Phase phase("inputs");
        verified.push_back(draw(shape, 0));
      }
      const HostArray& matrix = verified.back().host;
      std::vector<KernelLaunch> timed_kernels;
      const RunOnce once = run_once(lab_module, matrix, verified.back().rows, &timed_kernels);
      const std::string where = lab_title(lab) + " at " + shape_text(shape);
      const Fault fault = classify_fault(once.detail);
      switch (once.problem) {
        case RunOnce::Problem::none: break;
        case RunOnce::Problem::todo:
          return failed("not correct yet", lab_title(lab) + " is not implemented yet.\n" + doc_line(lab));
        case RunOnce::Problem::fault:
          return failed(fault_summary(fault, shape_text(shape)),
                        where + " failed: " + once.detail + "\n" + doc_line(lab, fault_hint(fault.kind)));
        case RunOnce::Problem::wrong:
          return not_correct_for_timing(lab, where + " is not correct yet: " + once.detail, figures);
      }
      std::string note;
      if (auto refusal = timed_code_differs(lab, timed_kernels, matrix, &note))
        return failed(refusal->summary, refusal->message);
      // One sentence where shapes read alike (nothing compared, and why).
      if (compared.empty() || note != last_note) compared += (compared.empty() ? "" : " ") + note;
      last_note = note;
    }
    // Their traffic, as the traffic test compared it (timed_traffic.hpp, which says why not at
    // the few long rows).
    if (auto refusal = timed_traffic_refusal(lab, setup.gpu_alone.empty(), &compared))
      return failed(refusal->summary, refusal->message);
    std::vector<ShapeTimes> times;
    try {
      for (std::size_t k = 0; k < shapes.size(); ++k)
        times.push_back(time_shape(lab_module, baseline_module, shapes[k], std::move(verified[k]), sample_count(),
                                   figures));
    } catch (const TimedWrong& wrong) {
      return failed("timed result wrong",
                    wrong.contender + " is right when run alone, but timed sample " + std::to_string(wrong.sample + 1) +
                        " returned a wrong result: " + wrong.text + ".\nEvery sample gets one of " +
                        std::to_string(kTimedInputs) +
                        " inputs with one element changed at a random place, and every row of its result is checked "
                        "after the timed region: every call must do the whole reduction.\n" +
                        doc_line(lab, timed_hint()));
    }
    const double copy = copy_bandwidth(elements * sizeof(float), sample_count());
    figures["copy_gbs"] = copy / 1e9;
    std::ostringstream message;
    message << lab_title(lab) << " on " << device_facts().name << ", " << sample_count()
            << " interleaved samples each (every row of every timed result checked), float sums; the baseline is your "
            << lab_title(base_lab) << " reducing the same elements as one vector:\n";
    double worst = 0;
    std::string worst_shape;
    for (const ShapeTimes& t : times) {
      const double bytes = rows_bytes(t.shape);
      const double ratio = t.baseline_ms / t.lab_ms;
      message << "  " << shape_text(t.shape) << ": " << format("%.4f ms", t.lab_ms) << " (" << gbs(bytes, t.lab_ms)
              << ", " << format("%.0f%%", 100 * bytes / (t.lab_ms * 1e-3) / copy) << " of copy); lab "
              << base_lab << " " << format("%.4f ms", t.baseline_ms) << ", ratio " << format("%.2fx", ratio);
      if (t.cub_ms)
        message << "; CUB " << format("%.4f ms", *t.cub_ms) << " (" << gbs(bytes, *t.cub_ms) << "), "
                << format("%.2fx", *t.cub_ms / t.lab_ms) << " of CUB's speed";
      message << "\n";
      if (worst_shape.empty() || ratio < worst) {
        worst = ratio;
        worst_shape = shape_text(t.shape);
      }
    }
    message << "  copy bandwidth " << format("%.0f GB/s", copy / 1e9)
            << " (bytes read + written by a device-to-device copy; lab " << lab << "'s and CUB's GB/s count the "
            << "matrix read and a float a row written, lab " << base_lab << "'s the elements and its one result)\n"
            << "  required: at least " << format("%.2fx", required) << " of lab " << base_lab
            << "'s speed at every shape\n";
    message << compared << "\n";
    figures["ratio"] = worst;
    // The worst shape's figures stand for the lab where one figure is read (the staircase, ./lab calibrate).
    for (const nlohmann::json& entry : figures["shapes"])
      if (shape_text({entry["rows"].get<std::size_t>(), entry["columns"].get<std::size_t>()}) == worst_shape) {
        figures["lab"] = entry["lab"];
        figures["baseline"] = entry["baseline"];
        figures["baseline"]["name"] = "your " + lab_title(base_lab) + ", as one vector, at " + worst_shape;
      }
    message << gpu_alone_line(setup.gpu_alone);
    const std::string summary = format("%.2fx", worst) + " @" + worst_shape + " (min " + format("%.2fx", required) +
                                (setup.gpu_alone.empty() ? ")" : "; GPU alone)");
    if (worst >= required) return pass(summary, message.str(), figures);
    message << "Your kernels are correct, but at " << worst_shape
            << " the device is not kept busy: the shape should pick the mapping.\n" << doc_line(lab);
    return failed(summary, message.str());
  } catch (const std::exception& e) {
    return timing_fault(lab, e.what(), "timing", figures);
  }
}

std::vector<std::size_t> bench_rows_lengths(std::size_t elements) {
  std::vector<std::size_t> lengths;
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{32}, std::size_t{33}, std::size_t{1000},
                        std::size_t{4096}, std::size_t{100000}, std::size_t{10000000}})
    if (n <= elements) lengths.push_back(n);
  return lengths;
}

nlohmann::json bench_rows(const ModuleInfo* module, int samples, std::size_t elements) {
  nlohmann::json table = {{"lab", module->lab},         {"name", lab_title(module->lab)},
                          {"device", device_facts().name}, {"samples", samples},
                          {"elements", elements},          {"shapes", nlohmann::json::array()}};
  const double copy = copy_bandwidth(elements * sizeof(float), samples) / 1e9;
  table["copy_gbs"] = copy;
  try {
    for (std::size_t columns : bench_rows_lengths(elements)) {
      const Shape shape{elements / columns, columns};
      time_shape(module, nullptr, shape, draw(shape, 0), samples, table);
    }
  } catch (const TimedWrong& wrong) {
    throw std::runtime_error(wrong.contender + "'s timed sample " + std::to_string(wrong.sample + 1) +
                             " returned a wrong result: " + wrong.text);
  }
  for (nlohmann::json& shape : table["shapes"]) {
    const std::size_t rows = shape["rows"].get<std::size_t>();
    shape["bytes"] = 4 * (rows * shape["columns"].get<std::size_t>() + rows);  // as rows_bytes: matrix and outputs
    for (const char* contender : {"lab", "cub"})
      if (shape.contains(contender)) shape[contender]["copy_share"] = shape[contender]["gbs"].get<double>() / copy;
  }
  return table;
}

}  // namespace reduce_lab::grader
