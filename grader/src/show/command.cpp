#include "show/command.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "base/catalog.hpp"
#include "measure/charts.hpp"
#include "base/files.hpp"
#include "run/limits.hpp"
#include "run/modules.hpp"
#include "run/supervision.hpp"
#include "run/supervisor.hpp"

#if defined(REDUCE_LAB_EMU)
#include "show/run.hpp"
#include "show/svg.hpp"
#include "show/terminal.hpp"
#endif

namespace reduce_lab::grader::show {

std::string docs_figure_file(int lab) {
  std::string page = lab_info(lab).doc;    // docs/01-simple.md
  page = page.substr(page.find('/') + 1);  // 01-simple.md
  return "figures/" + page.substr(0, page.rfind('.')) + ".svg";
}

#if defined(REDUCE_LAB_EMU)

namespace {

// "labs/01_simple.cu" from the path the build recorded beside the modules.
std::string short_source(const std::string& dir, int lab, const char* fallback_folder) {
  std::string path = lab_source_file_in(dir, lab);
  if (path.empty()) return fallback_folder + ("/" + lab_info(lab).stem) + ".cu";
  const std::size_t last = path.rfind('/');
  const std::size_t folder = last == std::string::npos || last == 0 ? std::string::npos : path.rfind('/', last - 1);
  return folder == std::string::npos ? path : path.substr(folder + 1);
}

std::string size_words(const Picture& p) {
  if (p.matrix.drawn) {
    const std::string shape =
        "a " + std::to_string(p.matrix.rows) + " x " + std::to_string(p.matrix.columns) + " matrix: ";
    if (p.blocks == 1) return shape + "one block of " + std::to_string(p.threads) + " threads";
    return shape + std::to_string(p.blocks) + " blocks of " + std::to_string(p.threads) + " threads, every block drawn";
  }
  const std::string words = "n = " + std::to_string(p.n) + ": ";
  if (p.blocks == 1) return words + "one block of " + std::to_string(p.threads) + " threads";
  return words + std::to_string(p.blocks) + " blocks of " + std::to_string(p.threads) + " threads, block 0 drawn";
}

// "the kernel of Fig. 10.6", or the catalog's words where the book has no figure for it.
std::string kernel_figure(int lab) {
  const std::string figure = lab_info(lab).figure;
  return figure.rfind("Fig.", 0) == 0 ? "the kernel of " + figure : figure;
}

std::string run_words(const RecordedRun& run) {
  if (!run.variant.empty()) {  // "at K = 4: output[0] = 8191"
    RecordedRun plain = run;
    plain.variant.clear();
    return "at " + run.variant + ": " + run_words(plain);
  }
  if (run.todo) return "not implemented yet (REDUCE_LAB_TODO)";
  if (!run.ran && run.picture.stop.stopped) return "it stopped with a " + run.picture.stop.kind;
  if (!run.ran) return "it stopped: " + run.error.substr(0, std::min<std::size_t>(60, run.error.find('\n'))) + " ...";
  char text[64];
  std::snprintf(text, sizeof text, "output[0] = %g", run.value);
  return text;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

std::string docs_figure_svg(const ModuleInfo& reference) {
  const RecordedRun run = record_run(reference, default_size(reference));
  Drawing drawing;
  drawing.title = lab_title(reference.lab) + ", the reference solution at " + size_words(run.picture);
  drawing.reference_label = "solutions/" + lab_info(reference.lab).stem + ".cu (" +
                            lab_info(reference.lab).figure + "), " + run_words(run);
  drawing.reference = &run.picture;
  drawing.note = "Drawn by ./lab show " + std::to_string(reference.lab) +
                 " from the emulator's record of the run; "
                 "./lab show --docs draws it again.";
  return svg(drawing);
}

namespace {

int draw_command(int argc, char** argv);

}  // namespace

int show_command(int argc, char** argv) {
  // A picture runs the student's kernel as a test does: in a child process that this one
  // supervises, under short limits (limits.hpp), so a kernel that never ends, or crashes the
  // process, ends the picture with the message a grade gives, never a hang.
  use_picture_limits();
  const int lab = argc > 2 ? std::atoi(argv[2]) : 0;
  return supervise(is_lab(lab) ? lab : 0, [&] {
    apply_emulator_limit();
    int code = 2;
    try {
      code = draw_command(argc, argv);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "labtools --show: %s\n", error.what());
    }
    supervision::note_verdict();  // it said what it found, picture or not
    return code;
  });
}

namespace {

// The variant a correctness record's first wrong case (or fault) ran in; 0 when it names none or
// cannot be read (the picture is then drawn in the lab's usual variant).
unsigned first_wrong_variant(const std::string& record) {
  try {
    const nlohmann::json json = read_json(record);
    if (json.contains("figures") && json["figures"].contains("first_wrong_variant"))
      return json["figures"]["first_wrong_variant"].get<unsigned>();
  } catch (const std::exception&) {
  }
  return 0;
}

int draw_command(int argc, char** argv) {
  if (argc < 3)
    throw std::runtime_error("usage: --show N --student DIR [--reference DIR] [--size n] [--variant V | --variant-of RECORD] [--svg FILE]");
  const int lab = std::atoi(argv[2]);
  lab_info(lab);  // throws for a number that is no lab
  std::string student_dir, reference_dir, svg_path, note;
  std::size_t n = 0;
  unsigned variant = 0;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--student")
      student_dir = argv[i + 1];
    else if (option == "--reference")
      reference_dir = argv[i + 1];
    else if (option == "--svg")
      svg_path = argv[i + 1];
    else if (option == "--size")
      n = std::strtoull(argv[i + 1], nullptr, 10);
    else if (option == "--variant")
      variant = static_cast<unsigned>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (option == "--variant-of")  // a correctness record: the variant its first wrong case ran
      variant = first_wrong_variant(argv[i + 1]);
    else if (option == "--note")
      note = argv[i + 1];
    else
      throw std::runtime_error("unknown option " + option);
  }
  const std::string student_source = short_source(student_dir, lab, "labs");
  const LoadedLab student = load_lab_from(student_dir, lab, Flavor::counted, student_source);
  if (!student) {
    std::printf("%s\n", student.problem.c_str());
    return 1;
  }
  if (n == 0) n = default_size(*student.info);
  if (const std::string problem = size_problem(*student.info, n); !problem.empty()) {
    std::fprintf(stderr, "./lab show %d --size %zu: %s.\n", lab, n, problem.c_str());
    return 2;
  }
  if (variant != 0) {
    if (const std::string problem = variant_problem(*student.info, variant); !problem.empty()) {
      std::fprintf(stderr, "./lab show %d --variant %u: %s.\n", lab, variant, problem.c_str());
      return 2;
    }
  }
  const RecordedRun yours = record_run(*student.info, n, variant);
  Drawing drawing;
  drawing.title = lab_title(lab) + " at " + size_words(yours.picture) + " (" + kernel_figure(lab) + ")";
  drawing.yours = &yours.picture;
  drawing.yours_label = "yours (" + student_source + "): " + run_words(yours);
  RecordedRun reference;
  if (reference_dir.empty() && !note.empty()) {
    drawing.note = note;
  } else if (reference_dir.empty()) {
    drawing.note = "This copy of the kit has no solutions/, so your picture is drawn alone; " +
                   lab_info(lab).doc + " shows the reference's.";
  } else {
    const std::string reference_source = short_source(reference_dir, lab, "solutions");
    const LoadedLab loaded = load_lab_from(reference_dir, lab, Flavor::counted, reference_source);
    if (loaded) {
      reference = record_run(*loaded.info, n, variant);
      drawing.reference = &reference.picture;
      drawing.reference_label = "reference (" + reference_source + "): " + run_words(reference);
      drawing.difference = first_difference(reference.picture, yours.picture);
    } else {
      drawing.note = "The reference could not be loaded (" + loaded.problem + "); your picture is drawn alone.";
    }
  }
  if (!svg_path.empty()) {
    const std::string text = svg(drawing);
    const std::string where = write_file(svg_path, text) ? "The picture as SVG: " + svg_path
                                                         : "(could not write the SVG to " + svg_path + ")";
    drawing.note += (drawing.note.empty() ? "" : " ") + where;
  }
  std::fputs(terminal(drawing, colour_wanted()).c_str(), stdout);
  // A run that stopped (a time limit, a deadlock, a fault) is the student's work failing.
  return yours.ran || yours.todo ? 0 : 1;
}

}  // namespace

int show_docs_command(int argc, char** argv) {
  use_picture_limits();
  apply_emulator_limit();
  if (argc != 5 || std::string(argv[3]) != "--reference")
    throw std::runtime_error("usage: --show-docs DOCS_DIR --reference DIR");
  const std::string docs = argv[2], reference_dir = argv[4];
  int status = 0;
  for (int lab = 1; lab <= lab_count(); ++lab) {
    const LoadedLab loaded =
        load_lab_from(reference_dir, lab, Flavor::counted, short_source(reference_dir, lab, "solutions"));
    if (!loaded) {
      std::printf("%s\n", loaded.problem.c_str());
      status = 1;
      continue;
    }
    const std::string path = docs + "/" + docs_figure_file(lab);
    if (!write_file(path, docs_figure_svg(*loaded.info))) {
      std::printf("could not write %s\n", path.c_str());
      status = 1;
    } else {
      std::printf("wrote %s\n", path.c_str());
    }
  }
  return status;
}

#else

std::string docs_figure_svg(const ModuleInfo&) { return {}; }

int show_command(int, char**) {
  std::fprintf(stderr,
               "labtools --show draws from the CPU emulator's record: run it from an emulator build "
               "(./lab show N builds one, also on a GPU machine).\n");
  return 2;
}
int show_docs_command(int argc, char** argv) { return show_command(argc, argv); }

#endif

}  // namespace reduce_lab::grader::show
