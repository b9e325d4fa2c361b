// Every figure the docs state about the test plans (how many inputs, which sizes, how many
// atomics per block ...) is computed here from the plan objects of kit.cpp and compared with
// the text. A sweep then finds every "<number> inputs/cases/sizes" in the pages that no claim
// covers, so a figure added to the docs later cannot go unchecked either.
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "base/catalog.hpp"
#include "catch_compat.hpp"
#include "kit.hpp"

using namespace reduce_lab;
using namespace reduce_lab::grader;

namespace {

// "1, 3, 31, 10^6 + 7 and 2^24 + 1" -> {1, 3, 31, 1000007, 16777217}
std::vector<std::size_t> parse_sizes(const std::string& text) {
  static const std::regex size(R"(([0-9]+)(?:\^([0-9]+))?(?: \+ ([0-9]+))?)");
  std::vector<std::size_t> sizes;
  for (std::sregex_iterator it(text.begin(), text.end(), size), end; it != end; ++it) {
    std::size_t value = std::stoull((*it)[1]);
    if ((*it)[2].matched) {
      const std::size_t base = value;
      value = 1;
      for (int k = std::stoi((*it)[2]); k > 0; --k) value *= base;
    }
    if ((*it)[3].matched) value += std::stoull((*it)[3]);
    sizes.push_back(value);
  }
  return sizes;
}

std::string canonical(const std::vector<std::size_t>& sizes) {
  std::string text;
  for (std::size_t n : sizes) text += (text.empty() ? "" : ",") + std::to_string(n);
  return text;
}

std::string number(std::size_t n) { return std::to_string(n); }
std::string list(const std::vector<std::size_t>& sizes) { return canonical(sizes); }

// A statement in a page. {n} stands for a number, {list} for sizes as the docs write them
// ("2, 64, 2048, 2^16 and 2^20"); `expected` holds one value per placeholder, in order.
struct Claim {
  std::string file;
  std::string row;  // only the line that starts with this; empty: the whole page
  std::string pattern;
  std::vector<std::string> expected;
};

std::string to_regex(const std::string& pattern) {
  static const std::string size = R"([0-9]+(?:\^[0-9]+)?(?: \+ [0-9]+)?)";
  std::string out;
  for (std::size_t i = 0; i < pattern.size();) {
    if (pattern.compare(i, 3, "{n}") == 0) {
      out += "([0-9]+)";
      i += 3;
    } else if (pattern.compare(i, 6, "{list}") == 0) {
      out += "(" + size + "(?:(?:,? and |, )" + size + ")*)";
      i += 6;
    } else {
      out += pattern[i++];
    }
  }
  return out;
}

// The pages state the GPU's plan, and the emulator's where it differs (plans.hpp).
std::size_t cases(int lab) { return case_count(correctness_plan(lab, PlanFor::gpu)); }
std::size_t emulator_cases(int lab) { return case_count(correctness_plan(lab, PlanFor::emulator)); }
std::size_t races_cases(int lab) { return case_count(races_plan(lab)); }
std::size_t special_cases(int lab) {
  const CorrectnessPlan plan = correctness_plan(lab, PlanFor::gpu);
  return plan.special_sizes.size() * plan.special_patterns.size();
}
std::vector<std::size_t> powers(int lab) {
  std::vector<std::size_t> out;
  for (std::size_t n : correctness_plan(lab, PlanFor::gpu).sizes)
    if (n >= 2 && (n & (n - 1)) == 0) out.push_back(n);
  return out;
}
std::vector<std::size_t> other_sizes(int lab) {
  std::vector<std::size_t> out;
  for (std::size_t n : correctness_plan(lab, PlanFor::gpu).sizes)
    if (n < 2 || (n & (n - 1)) != 0) out.push_back(n);
  return out;
}
std::string row(int lab, const char* test) { return "| `lab" + std::to_string(lab) + "." + test + "` |"; }

std::vector<Claim> claims() {
  std::vector<Claim> all;
  const char* pages[] = {"", "docs/01-simple.md", "docs/02-convergent.md", "docs/03-shared-memory.md",
                         "docs/04-segmented.md", "docs/05-coarsened.md", "docs/06-warp-unrolled.md",
                         "docs/07-templated.md"};
  const CorrectnessPlan one = correctness_plan(1, PlanFor::gpu);
  const CorrectnessPlan four = correctness_plan(4, PlanFor::gpu);
  const std::vector<std::size_t> book = book_request_sizes();

  // Labs 1-3: powers of two, the other patterns at a few sizes, one counted pass at each size.
  all.push_back({pages[1], row(1, "correctness"), "{n} inputs: random", {number(cases(1))}});
  all.push_back({pages[1], row(1, "correctness"), "power of two from {n} to {list} \\({n} sizes\\)",
                 {number(powers(1).front()), list({powers(1).back()}), number(powers(1).size())}});
  all.push_back({pages[1], row(1, "correctness"), "at n = {list}\\.", {list(one.special_sizes)}});
  all.push_back({pages[1], "", "`<cases>` is {n} when every case ran", {number(cases(1))}});
  all.push_back({pages[1], "", "after {n} wrong random-input sizes", {number(one.stop_after_wrong)}});
  all.push_back({pages[2], row(2, "correctness"), "The same {n} inputs as lab 1", {number(cases(2))}});
  all.push_back({pages[3], row(3, "correctness"), "The same {n} inputs as labs 1 and 2", {number(cases(3))}});
  for (int lab = 1; lab <= 3; ++lab) {
    const CorrectnessPlan plan = correctness_plan(lab, PlanFor::gpu);
    if (lab > 1) {
      all.push_back({pages[lab], row(lab, "correctness"), "power of two from {n} to {list},",
                     {number(powers(lab).front()), list({powers(lab).back()})}});
      all.push_back({pages[lab], row(lab, "correctness"), "at n = {list}\\.", {list(plan.special_sizes)}});
    }
    all.push_back({pages[lab], row(lab, "requests"), "every power of two from {n} to {list}",
                   {number(book.front()), list({book.back()})}});
    all.push_back({pages[lab], row(lab, "races"), "at n = {list},", {list(races_plan(lab).sizes)}});
  }

  // Labs 4-7: any n.
  all.push_back({pages[4], row(4, "correctness"), "{n} inputs\\.", {number(cases(4))}});
  all.push_back({pages[4], row(4, "correctness"), "power of two from {n} to {list} \\({n} sizes\\)",
                 {number(powers(4).front()), list({powers(4).back()}), number(powers(4).size())}});
  all.push_back({pages[4], row(4, "correctness"), "and at {list} \\({n} sizes\\)",
                 {list(other_sizes(4)), number(other_sizes(4).size())}});
  all.push_back({pages[4], row(4, "correctness"), "at n = {list} \\({n} cases\\)",
                 {list(four.special_sizes), number(special_cases(4))}});
  // The NaN example: every random size wrong until the grader stops, then every other pattern.
  const std::size_t stopped = static_cast<std::size_t>(four.stop_after_wrong) + special_cases(4);
  all.push_back({pages[4], "", "wrong result in {n} of {n} cases", {number(stopped), number(stopped)}});
  all.push_back({pages[4], "", "\n{n} of {n}: after {n} wrong random sizes \\(n = {n} to {n}\\)",
                 {number(stopped), number(stopped), number(four.stop_after_wrong), number(four.sizes.front()),
                  number(four.sizes[four.stop_after_wrong - 1])}});
  all.push_back({pages[4], "", "runs the {n} cases with the other patterns", {number(special_cases(4))}});
  all.push_back({pages[5], row(5, "correctness"), "The same {n} inputs as lab 4", {number(cases(5))}});
  all.push_back({pages[5], row(5, "correctness"), "power of two from {n} to {list} and at {list};",
                 {number(powers(5).front()), list({powers(5).back()}), list(other_sizes(5))}});
  all.push_back({pages[5], row(5, "correctness"), "large values at {list}\\.",
                 {list(correctness_plan(5, PlanFor::gpu).special_sizes)}});
  all.push_back({pages[6], row(6, "correctness"), "The same {n} inputs as labs 4 and 5", {number(cases(6))}});
  const std::size_t pairs = correctness_plan(7).dtypes.size() * correctness_plan(7).ops.size();
  all.push_back({pages[7], row(7, "correctness"), "Lab 4's {n} inputs", {number(cases(7) / pairs)}});
  all.push_back({pages[7], row(7, "correctness"), ": {n} cases on a GPU", {number(cases(7))}});
  const CorrectnessPlan seven_emulated = correctness_plan(7, PlanFor::emulator);
  all.push_back({pages[7], row(7, "correctness"), "{n} on the emulator, which runs {list} in float sum only",
                 {number(emulator_cases(7)), list(seven_emulated.once_sizes)}});

  for (int lab = 4; lab <= 7; ++lab) {
    const TrafficPlan plan = traffic_plan(lab, PlanFor::gpu);
    all.push_back({pages[lab], row(lab, "requests"), lab == 4 ? "Counted at n = {list}\\." : "At n = {list}[:,]",
                   {list(plan.sizes)}});
    if (plan.elements_per_block)
      all.push_back({pages[lab], row(lab, "requests"), "ceil\\(n / {n}\\)", {number(plan.elements_per_block)}});
    if (plan.max_barriers_per_block)
      all.push_back({pages[lab], row(lab, "requests"), "at most {n} `__syncthreads\\(\\)` per block",
                     {number(plan.max_barriers_per_block)}});
    all.push_back({pages[lab], row(lab, "races"), "at n = {list}[ ,]", {list(races_plan(lab).sizes)}});
  }
  all.push_back({pages[4], row(4, "requests"), "one atomic per {n} elements", {number(traffic_plan(4).elements_per_block)}});

  // Lab 9: lab 4's plan in every fan-in K (its variants); the emulator's once sizes at the first K only.
  const std::string nine = "docs/09-fan-in.md";
  const CorrectnessPlan nine_plan = correctness_plan(9);
  const std::size_t fan_ins = nine_plan.variants.size();
  const std::size_t block_cases = nine_plan.block_variants.size() * nine_plan.special_sizes.size();
  std::vector<std::size_t> other_blocks(lab_info(9).block_sizes.begin(), lab_info(9).block_sizes.end());
  all.push_back({nine, row(9, "correctness"), "Lab 4's {n} inputs in every K, and in every K its special sizes n = {list} again in blocks of {list} threads",
                 {number((cases(9) - block_cases) / fan_ins), list(nine_plan.special_sizes), list(other_blocks)}});
  all.push_back({nine, row(9, "correctness"), "launch that block size: {n} cases on a GPU, {n} on the emulator",
                 {number(cases(9)), number(emulator_cases(9))}});
  all.push_back({nine, row(9, "correctness"), "which runs {list} at K = {n} only",
                 {list(correctness_plan(9, PlanFor::emulator).once_sizes),
                  number(correctness_plan(9).variants.front())}});
  all.push_back({nine, row(9, "requests"), "At n = {list}, in every K", {list(traffic_plan(9).sizes)}});
  all.push_back({nine, row(9, "requests"), "ceil\\(n / {n}\\)", {number(traffic_plan(9).elements_per_block)}});
  all.push_back({nine, row(9, "races"), "at n = {list} in every K", {list(races_plan(9).sizes)}});

  // Lab 10: lab 4's plan at the factors it chooses; its speed test's sizes are its sweep's.
  const std::string ten = "docs/10-chosen-factor.md";
  all.push_back({ten, row(10, "correctness"), "Lab 4's {n} inputs, each at the factor", {number(cases(10))}});
  all.push_back({ten, row(10, "requests"), "At n = {list}:", {list(traffic_plan(10).sizes)}});
  all.push_back({ten, row(10, "speedup"), "At n = {list}: your choice", {list(lab_info(10).sweep.sizes)}});
  std::vector<std::size_t> swept(lab_info(10).sweep.values.begin(), lab_info(10).sweep.values.end());
  all.push_back({ten, row(10, "speedup"), "against factors {list} and the one", {list(swept)}});
  all.push_back({ten, row(10, "races"), "at n = {list}, GPU only", {list(races_plan(10).sizes)}});

  // Lab 11: lab 1's plan, counted against its own model.
  const std::string eleven = "docs/11-neighbored-less.md";
  all.push_back({eleven, row(11, "correctness"), "The same {n} inputs as lab 1", {number(cases(11))}});
  all.push_back({eleven, row(11, "requests"), "every power of two from {n} to {list}",
                 {number(book.front()), list({book.back()})}});
  all.push_back({eleven, row(11, "races"), "at n = {list},", {list(races_plan(11).sizes)}});
  // Lab 12: lab 1's plan in every tree, then Order at every power of two.
  const std::string twelve = "docs/12-order.md";
  all.push_back({twelve, row(12, "correctness"), "{n} inputs each", {number(cases(12) / lab_info(12).variants.size())}});
  all.push_back({twelve, row(12, "correctness"), "{n} cases in all", {number(cases(12))}});
  all.push_back({twelve, row(12, "races"), "at n = {list},", {list(races_plan(12).sizes)}});
  all.push_back({pages[5], row(5, "requests"), "one per block of {n} elements", {number(traffic_plan(5).elements_per_block)}});

  // grading.md and the README.
  const std::string grading = "docs/grading.md";
  all.push_back({grading, "", "n = {list}: {n} \\+ {n} x {n} = {n} cases",
                 {list(one.special_sizes), number(one.sizes.size()), number(one.special_sizes.size()),
                  number(one.special_patterns.size()), number(cases(1))}});
  all.push_back({grading, "", "Labs 4-7 take any n: {n} cases, and {n}\\s+for lab 7", {number(cases(4)), number(cases(7))}});
  all.push_back({grading, "", "\\({n} on the emulator", {number(emulator_cases(7))}});
  all.push_back({grading, "", "After {n} wrong sizes with random values", {number(one.stop_after_wrong)}});
  all.push_back({grading, "", "one pass at every power of two from {n} to {list}", {number(book.front()), list({book.back()})}});
  all.push_back({grading, "1 simple ", "PASS gpu {n} ok, emu {n} ok", {number(cases(1)), number(cases(1))}});
  all.push_back({grading, "1 simple ", "PASS {n} cases ok$", {number(races_cases(1))}});
  all.push_back({grading, "2 convergent ", "PASS {n} cases ok$", {number(races_cases(2))}});
  all.push_back({grading, "", "\\(`PASS {n} cases ok`\\)", {number(cases(1))}});
  all.push_back({"README.md", "1 simple ", "PASS gpu {n} ok, emu {n} ok", {number(cases(1)), number(cases(1))}});
  all.push_back({"README.md", "1 simple ", "PASS {n} cases ok$", {number(races_cases(1))}});
  return all;
}

struct Span {
  std::string file;
  std::size_t begin, end;
};

}  // namespace

TEST_CASE("kit docs") {
  std::vector<Span> covered;
  for (const Claim& claim : claims()) {
    INFO(claim.file << ": \"" << claim.pattern << "\"" << (claim.row.empty() ? "" : " in the row " + claim.row));
    const std::string page = read_text(source_root() + "/" + claim.file);
    REQUIRE_FALSE(page.empty());
    // The text searched: the whole page, or the one line that starts with `row`.
    std::size_t offset = 0;
    std::string text = page;
    if (!claim.row.empty()) {
      const std::size_t at = page.find("\n" + claim.row);
      REQUIRE(at != std::string::npos);
      offset = at + 1;
      text = page.substr(offset, page.find('\n', offset) - offset);
    }
    const std::regex pattern(to_regex(claim.pattern));
    int matches = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it, ++matches) {
      REQUIRE(it->size() == claim.expected.size() + 1);
      for (std::size_t g = 0; g < claim.expected.size(); ++g) {
        const std::string stated = (*it)[g + 1];
        INFO("the page states \"" << stated << "\"; the plans in grader/src/checks/plans.cpp give " << claim.expected[g]);
        CHECK(canonical(parse_sizes(stated)) == claim.expected[g]);
        const std::size_t begin = offset + static_cast<std::size_t>(it->position(g + 1));
        covered.push_back({claim.file, begin, begin + stated.size()});
      }
    }
    CHECK(matches > 0);  // a claim whose sentence is gone: update the claim with the page
  }

  // Every "<number> inputs / cases / sizes" the pages state must be one of the claims above.
  std::vector<std::string> files = {"README.md"};
  for (const char* page : {"01-simple", "02-convergent", "03-shared-memory", "04-segmented", "05-coarsened",
                           "06-warp-unrolled", "07-templated", "09-fan-in", "10-chosen-factor", "11-neighbored-less", "12-order",
                           "grading", "instructors", "emulator"})
    files.push_back(std::string("docs/") + page + ".md");
  const std::regex figure(R"(\b([0-9]+) (inputs|cases|sizes)\b)");
  for (const std::string& file : files) {
    const std::string page = read_text(source_root() + "/" + file);
    for (std::sregex_iterator it(page.begin(), page.end(), figure), end; it != end; ++it) {
      const std::size_t at = static_cast<std::size_t>(it->position(1));
      bool claimed = false;
      for (const Span& span : covered) claimed = claimed || (span.file == file && span.begin <= at && at < span.end);
      const std::size_t line_start = page.rfind('\n', at) + 1;
      INFO(file << ": \"" << page.substr(line_start, page.find('\n', at) - line_start) << "\"");
      INFO("\"" << it->str() << "\" is a figure about the test plans that kit_docs.test.cpp does not check; add a claim");
      CHECK(claimed);
    }
  }
}
