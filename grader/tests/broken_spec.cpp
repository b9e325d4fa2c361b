// The expectation block of a broken-lab case: a few lines of a small fixed grammar, parsed
// strictly, because a case whose expectations are silently misread would pass for nothing.
#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "broken_suite.hpp"
#include "base/catalog.hpp"

namespace reduce_lab::grader::broken {

namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The words of an expect line; "quoted strings" (with \" and \\) are one word each.
// `quoted` tells which words were quoted, so that a summary can never be mistaken for a keyword.
std::vector<std::string> words_of(const std::string& text, std::vector<bool>* quoted, std::string* error) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::string word;
    if (text[i] == '"') {
      ++i;
      bool closed = false;
      while (i < text.size()) {
        const char c = text[i++];
        if (c == '"') {
          closed = true;
          break;
        }
        if (c == '\\' && i < text.size()) {
          word += text[i++];
        } else {
          word += c;
        }
      }
      if (!closed) {
        *error = "a quoted string is not closed";
        return {};
      }
      if (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) {
        *error = "a quoted string must be followed by a space";
        return {};
      }
      quoted->push_back(true);
    } else {
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) word += text[i++];
      quoted->push_back(false);
    }
    words.push_back(word);
  }
  return words;
}

bool applies(const std::string& written, const std::string& backend) { return written == "all" || written == backend; }

}  // namespace

Case parse_case(const std::string& path, const std::string& text) {
  const std::string file = path.substr(path.find_last_of('/') + 1);
  auto fail_at = [&](int line, const std::string& what) -> SpecError {
    return SpecError(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what);
  };

  Case c;
  std::smatch name;
  const std::string stem = file.size() > 3 && file.compare(file.size() - 3, 3, ".cu") == 0
                               ? file.substr(0, file.size() - 3)
                               : file;
  static const std::regex kName("(ok_)?lab([1-9][0-9]*)_[a-z0-9_]+");
  if (file == stem || !std::regex_match(stem, name, kName))
    throw fail_at(0, "a case is named lab<N>_<what>.cu (a broken lab N) or ok_lab<N>_<what>.cu (a legal one), "
                     "in lower case");
  c.name = stem;
  c.legal = name[1].matched;
  c.lab = std::stoi(name[2]);
  if (!is_lab(c.lab)) throw fail_at(0, "there is no lab " + std::to_string(c.lab) + " in grader/labs.json");

  static const std::regex kExpectWord("^\\s*//\\s*expect\\b.*");
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  bool in_header = true, described = false;
  while (std::getline(lines, line)) {
    ++number;
    const std::string stripped = trim(line);
    if (in_header && stripped.compare(0, 2, "//") != 0) in_header = false;
    if (!in_header) {
      if (std::regex_match(line, kExpectWord))
        throw fail_at(number, "expectations belong in the header comment at the top of the file");
      continue;
    }
    const std::string body = trim(stripped.substr(2));
    const std::string keyword = body.substr(0, body.find_first_of(" \t"));
    if (keyword != "expect" && keyword != "env") {
      if (!body.empty()) described = true;
      continue;
    }
    std::vector<bool> quoted;
    std::string error;
    const std::vector<std::string> words = words_of(body, &quoted, &error);
    if (!error.empty()) throw fail_at(number, error);

    if (words[0] == "env") {
      const std::size_t equals = words.size() == 2 ? words[1].find('=') : std::string::npos;
      if (equals == std::string::npos || words[1].compare(0, 11, "REDUCE_LAB_") != 0)
        throw fail_at(number, "write // env REDUCE_LAB_<NAME>=<value> (one setting, of the kit's own)");
      c.environment.emplace_back(words[1].substr(0, equals), words[1].substr(equals + 1));
      continue;
    }

    // expect <backend> <check> <status> ["summary" ["message"]]
    const std::string usage =
        "write // expect <gpu|emu|all> <correctness|requests|speedup|races> <PASS|FAIL|SKIP> "
        "[\"summary substring\" [\"message substring\"]]";
    if (words.size() < 4 || words.size() > 6) throw fail_at(number, usage);
    for (std::size_t w = 1; w < 4; ++w)
      if (quoted[w]) throw fail_at(number, usage);
    for (std::size_t w = 4; w < words.size(); ++w)
      if (!quoted[w]) throw fail_at(number, "the summary and message substrings are quoted: " + usage);
    Expectation e;
    e.line = number;
    e.backend = words[1];
    e.check = words[2];
    if (e.backend != "gpu" && e.backend != "emu" && e.backend != "all")
      throw fail_at(number, "unknown backend '" + e.backend + "': gpu, emu or all");
    const std::vector<std::string>& checks = check_names();
    if (std::find(checks.begin(), checks.end(), e.check) == checks.end())
      throw fail_at(number, "unknown check '" + e.check + "': correctness, requests, speedup or races");
    if (words[3] == "PASS") {
      e.status = Status::pass;
    } else if (words[3] == "FAIL") {
      e.status = Status::fail;
    } else if (words[3] == "SKIP") {
      e.status = Status::skip;
    } else {
      throw fail_at(number, "unknown status '" + words[3] + "': PASS, FAIL or SKIP");
    }
    if (words.size() > 4) e.summary = words[4];
    if (words.size() > 5) e.message = words[5];
    if (e.status == Status::fail && e.summary.empty())
      throw fail_at(number, "a FAIL says which summary it must show (a quoted substring of the table's summary)");
    for (const Expectation& other : c.expectations)
      if (other.check == e.check && (applies(other.backend, e.backend) || applies(e.backend, other.backend)))
        throw fail_at(number, "the " + e.check + " check of the " + e.backend + " backend is already expected on line " +
                                  std::to_string(other.line));
    c.expectations.push_back(e);
  }

  if (!described) throw fail_at(1, "the header must say what the student did (or where a legal version comes from)");
  if (c.expectations.empty()) throw fail_at(1, "no '// expect' lines in the header");
  const std::regex registration("REDUCE_LAB_(MULTIPASS|SINGLE|GENERIC|ROWS|FAN_IN|CHOSEN_FACTOR|ORDER)\\(\\s*" + std::to_string(c.lab) +
                                "\\s*,");
  if (!std::regex_search(text, registration))
    throw fail_at(0, "the file does not register itself as lab " + std::to_string(c.lab) +
                         " (REDUCE_LAB_MULTIPASS/SINGLE/GENERIC/ROWS/FAN_IN/CHOSEN_FACTOR/ORDER(" + std::to_string(c.lab) +
                         ", ...) at its end)");
  if (c.legal) {
    // A legal alternative is graded like the reference: correct, and within the traffic
    // the lesson allows, whatever runs it.
    for (const char* backend : {"gpu", "emu"}) {
      for (const char* check : {"correctness", "requests"}) {
        const auto found = std::find_if(c.expectations.begin(), c.expectations.end(), [&](const Expectation& e) {
          return e.check == check && applies(e.backend, backend);
        });
        if (found == c.expectations.end() || found->status != Status::pass)
          throw fail_at(found == c.expectations.end() ? 1 : found->line,
                        std::string("a legal alternative (ok_...) must expect PASS for ") + check + " on the " +
                            backend + " backend");
      }
    }
  } else if (std::none_of(c.expectations.begin(), c.expectations.end(),
                          [](const Expectation& e) { return e.status == Status::fail; })) {
    throw fail_at(1, "a broken lab expects at least one check to FAIL (or name it ok_... if it is legal)");
  }
  return c;
}

std::vector<Expectation> expectations_for(const Case& c, const std::string& backend) {
  std::vector<Expectation> chosen;
  for (const std::string& check : check_names())
    for (const Expectation& e : c.expectations)
      if (e.check == check && applies(e.backend, backend)) chosen.push_back(e);
  return chosen;
}

bool meets(const Expectation& expected, const Verdict& verdict, std::string* why) {
  std::string differs;
  if (verdict.status != expected.status)
    differs = std::string("the status is ") + status_word(verdict.status) + ", not " + status_word(expected.status);
  else if (verdict.summary.find(expected.summary) == std::string::npos)
    differs = "the summary does not contain \"" + expected.summary + "\"";
  else if (!expected.message.empty() && verdict.message.find(expected.message) == std::string::npos)
    differs = "the message does not contain \"" + expected.message + "\"";
  if (why) *why = differs;
  return differs.empty();
}

std::vector<std::pair<int, std::string>> speed_prerequisites(const Case& c, const std::string& backend) {
  const bool timed_on_gpu = std::any_of(c.expectations.begin(), c.expectations.end(), [](const Expectation& e) {
    return e.check == "speedup" && (e.backend == "gpu" || e.backend == "all");
  });
  if (!timed_on_gpu) return {};
  std::vector<std::pair<int, std::string>> needed;
  for (const int lab : {c.lab, lab_info(c.lab).baseline}) {
    if (lab <= 0) continue;  // the CPU loop
    needed.emplace_back(lab, "correctness");
    if (backend == "gpu") needed.emplace_back(lab, "races");
  }
  return needed;
}

}  // namespace reduce_lab::grader::broken
