// A small reader of a lab file: tokens (no preprocessing), the functions and structs defined
// at namespace and struct scope, and the calls in their bodies. It is deliberately partial:
// whatever it cannot tell for sure, it leaves to nvcc (see the header).
#include "execution_spaces.hpp"

#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace reduce_lab::spaces {
namespace {

struct Token {
  std::string text;  // string and character literals are "" and ''
  int line = 0;
  bool identifier = false;
};

bool starts_identifier(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool continues_identifier(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Comments and preprocessor lines are dropped (a lab's macros are nvcc's business).
std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> tokens;
  int line = 1;
  bool line_start = true;
  std::size_t i = 0;
  const std::size_t n = s.size();
  auto skip_to = [&](std::size_t end) {
    for (; i < end && i < n; ++i)
      if (s[i] == '\n') ++line;
  };
  while (i < n) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      line_start = true;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const std::size_t end = s.find("*/", i + 2);
      skip_to(end == std::string::npos ? n : end + 2);
      continue;
    }
    if (c == '#' && line_start) {
      while (i < n && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') ++line, ++i;
        ++i;
      }
      continue;
    }
    line_start = false;
    const int at = line;
    if (c == '"' || c == '\'') {
      for (++i; i < n && s[i] != c && s[i] != '\n'; ++i)
        if (s[i] == '\\') ++i;
      ++i;
      tokens.push_back({c == '"' ? "\"\"" : "''", at, false});
      continue;
    }
    if (starts_identifier(c)) {
      const std::size_t start = i;
      while (i < n && continues_identifier(s[i])) ++i;
      const std::string word = s.substr(start, i - start);
      if (i < n && s[i] == '"' && !word.empty() && word.back() == 'R') {  // a raw string literal
        const std::size_t open = s.find('(', i);
        const std::string delimiter = ")" + s.substr(i + 1, open == std::string::npos ? 0 : open - i - 1) + "\"";
        const std::size_t end = open == std::string::npos ? n : s.find(delimiter, open);
        skip_to(end == std::string::npos ? n : end + delimiter.size());
        tokens.push_back({"\"\"", at, false});
        continue;
      }
      tokens.push_back({word, at, true});
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      const std::size_t start = i;
      for (++i; i < n; ++i) {
        const char d = s[i], before = s[i - 1];
        const bool exponent_sign = (d == '+' || d == '-') && std::string("eEpP").find(before) != std::string::npos;
        const bool separator = d == '\'' && i + 1 < n && continues_identifier(s[i + 1]);
        if (!continues_identifier(d) && d != '.' && !exponent_sign && !separator) break;
      }
      tokens.push_back({s.substr(start, i - start), at, false});
      continue;
    }
    if ((c == ':' && i + 1 < n && s[i + 1] == ':') || (c == '-' && i + 1 < n && s[i + 1] == '>')) {
      tokens.push_back({s.substr(i, 2), at, false});
      i += 2;
      continue;
    }
    tokens.push_back({std::string(1, c), at, false});
    ++i;
  }
  return tokens;
}

struct Function {
  std::string name;   // "operator()" for a call operator
  std::string owner;  // the struct it is a member of; empty for a free function
  int line = 0;
  bool global = false, device = false, host = false;
  std::string return_type;
  std::size_t params = 0;  // the '(' of its parameter list
  std::size_t body = 0;    // its '{'
  std::size_t body_end = 0;

  // A __host__ __device__ function may call host functions: nvcc only warns, and only
  // where the device really calls it, so such bodies are left alone.
  bool device_code() const { return global || (device && !host); }
  bool host_only() const { return !global && !device; }
  bool device_only() const { return device && !host && !global; }
  std::string full_name() const { return owner.empty() ? name : owner + "::" + name; }
};

// Names in a declaration that are not its return type: storage, qualifiers, attributes.
const std::set<std::string> kSpecifiers = {
    "static", "inline", "extern", "virtual", "explicit", "friend", "constexpr", "consteval", "__global__",
    "__device__", "__host__", "__forceinline__", "__noinline__", "typename"};
// Names followed by parentheses that are not a parameter list.
const std::set<std::string> kAttributes = {"__launch_bounds__", "__maxnreg__", "__cluster_dims__", "__align__",
                                           "alignas", "__attribute__", "__declspec", "decltype", "noexcept",
                                           "throw", "sizeof", "alignof"};
// Identifiers followed by '(' in a body that are never calls of a function of the file.
const std::set<std::string> kNotCalls = {"if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype",
                                         "catch", "static_assert", "static_cast", "reinterpret_cast",
                                         "const_cast", "dynamic_cast", "noexcept", "typeid", "case", "new",
                                         "delete", "throw", "co_return", "co_await", "co_yield", "else", "do"};

class Reader {
 public:
  // `spelled` maps a macro that stands for execution-space specifiers (#define DEVICE
  // __device__ __forceinline__) to them.
  Reader(std::vector<Token> tokens, std::map<std::string, std::set<std::string>> spelled)
      : t_(std::move(tokens)), spelled_(std::move(spelled)) {
    scope(0, t_.size(), "");
  }

  const std::vector<Token>& tokens() const { return t_; }
  const std::vector<Function>& functions() const { return functions_; }
  const std::set<std::string>& namespaces() const { return namespaces_; }

  // The matching bracket of the one at i (or the end).
  std::size_t match(std::size_t i) const {
    const std::string open = t_[i].text;
    const std::string close = open == "(" ? ")" : open == "[" ? "]" : open == "{" ? "}" : ">";
    int depth = 0;
    for (std::size_t j = i; j < t_.size(); ++j) {
      if (open == "<" && (t_[j].text == "(" || t_[j].text == "[")) {
        j = match(j);
        continue;
      }
      if (open == "<" && (t_[j].text == ";" || t_[j].text == "{" || t_[j].text == "}")) return t_.size();
      if (t_[j].text == open) ++depth;
      if (t_[j].text == close && --depth == 0) return j;
    }
    return t_.size();
  }

 private:
  // Declarations from i up to the '}' (or end) that closes this scope.
  void scope(std::size_t i, std::size_t end, const std::string& owner) {
    while (i < end) {
      const std::string& first = t_[i].text;
      if (first == ";" || first == "}") {
        ++i;
        continue;
      }
      if ((first == "public" || first == "private" || first == "protected") && i + 1 < end &&
          t_[i + 1].text == ":") {
        i += 2;
        continue;
      }
      // One declaration: up to ';' or '{' outside brackets and template headers.
      std::size_t j = i;
      while (j < end && t_[j].text != ";" && t_[j].text != "{" && t_[j].text != "}") {
        if (t_[j].text == "template" && j + 1 < end && t_[j + 1].text == "<")
          j = match(j + 1) + 1;
        else if (t_[j].text == "(" || t_[j].text == "[")
          j = match(j) + 1;
        else
          ++j;
      }
      if (j >= end || t_[j].text == "}") {
        i = j;
        continue;
      }
      if (t_[j].text == ";") {
        declaration(i, j, owner, 0);  // a prototype says which space a later definition is in
        i = j + 1;
        continue;
      }
      const std::size_t close = std::min(match(j), end);
      const std::size_t head = after_template(i, j);
      if (head < j && t_[head].text == "namespace") {
        if (head + 1 < j && t_[head + 1].identifier) namespaces_.insert(t_[head + 1].text);
        scope(j + 1, close, "");
      } else if (head + 1 < j && t_[head].text == "extern" && t_[head + 1].text == "\"\"") {
        scope(j + 1, close, owner);
      } else if (!declaration(i, j, owner, close)) {
        const std::string name = struct_name(head, j);
        if (!name.empty()) {
          scope(j + 1, close, name);
        }
        // anything else with braces (an enum, an initializer) holds no function
      }
      i = close + 1;
    }
  }

  std::size_t after_template(std::size_t i, std::size_t end) const {
    while (i < end && t_[i].text == "template" && i + 1 < end && t_[i + 1].text == "<") i = match(i + 1) + 1;
    while (i < end && (t_[i].text == "inline" || t_[i].text == "export")) ++i;
    return i;
  }

  std::string struct_name(std::size_t i, std::size_t end) const {
    for (; i < end; ++i) {
      const std::string& k = t_[i].text;
      if (k == "enum") return {};
      if (k != "struct" && k != "class" && k != "union") continue;
      for (std::size_t j = i + 1; j < end; ++j) {
        if (t_[j].text == "(" || t_[j].text == "[") {
          j = match(j);
        } else if (t_[j].identifier && !kAttributes.count(t_[j].text)) {
          return t_[j].text;
        }
      }
      return {};
    }
    return {};
  }

  // Records the function declared in [i, end) (a definition when body > 0, whose '{' is at
  // end). Returns false when [i, end) declares no function.
  bool declaration(std::size_t i, std::size_t end, const std::string& owner, std::size_t body_end) {
    const std::size_t start = after_template(i, end);
    // The parameter list: the first '(' after a name that is not an attribute.
    std::size_t params = end, name_at = end;
    std::string name;
    for (std::size_t j = start; j < end; ++j) {
      const std::string& k = t_[j].text;
      if (k == "=") return false;  // a variable with an initializer
      if (k == "[") {
        j = match(j);
        continue;
      }
      if (k != "(") continue;
      if (j > start && t_[j - 1].text == "operator" && j + 2 < end && t_[j + 1].text == ")" && t_[j + 2].text == "(") {
        name = "operator()", name_at = j - 1, params = j + 2;
        break;
      }
      if (j > start && t_[j - 1].identifier && !kAttributes.count(t_[j - 1].text) &&
          !kSpecifiers.count(t_[j - 1].text)) {
        name = t_[j - 1].text, name_at = j - 1, params = j;
        break;
      }
      j = match(j);
    }
    if (params >= end) return false;
    const std::size_t params_end = match(params);
    if (params_end >= end) return false;
    // After the parameters only a function's trailing parts may follow: qualifiers, a trailing
    // return type, a constructor's initializers.
    for (std::size_t j = params_end + 1; j < end; ++j) {
      const std::string& k = t_[j].text;
      if (k == "->" || k == ":") break;
      if (k == "(" || k == "[") {
        j = match(j);
        continue;
      }
      if (!(k == "const" || k == "volatile" || k == "noexcept" || k == "override" || k == "final" ||
            k == "mutable" || k == "&" || k == "throw" || kAttributes.count(k)))
        return false;
    }
    Function f;
    f.name = name;
    f.owner = owner;
    f.line = t_[name_at].line;
    if (name_at >= 2 && t_[name_at - 1].text == "::" && t_[name_at - 2].identifier &&
        !namespaces_.count(t_[name_at - 2].text))
      f.owner = t_[name_at - 2].text;  // a member defined outside its struct
    for (std::size_t j = start; j < name_at; ++j) {
      const std::string& k = t_[j].text;
      const auto macro = spelled_.find(k);
      auto says = [&](const char* space) { return k == space || (macro != spelled_.end() && macro->second.count(space)); };
      f.global |= says("__global__");
      f.device |= says("__device__");
      f.host |= says("__host__");
      if (k == "(" || k == "[") {
        j = match(j);  // an attribute's arguments
      } else if (!kSpecifiers.count(k) && !kAttributes.count(k) && !(k == "::" || (j + 1 < name_at && t_[j + 1].text == "::"))) {
        f.return_type += (f.return_type.empty() ? "" : " ") + k;
      }
    }
    f.params = params;
    if (body_end > 0) {
      f.body = end;
      f.body_end = body_end;
    }
    functions_.push_back(f);
    return true;
  }

  std::vector<Token> t_;
  std::vector<Function> functions_;
  std::map<std::string, std::set<std::string>> spelled_;
  std::set<std::string> namespaces_;
};

// What the file says about each name, over all its declarations and overloads.
struct Spaces {
  bool device_callable = false;  // some declaration runs on the device
  bool host_callable = false;    // some declaration runs on the host
};

class Checker {
 public:
  explicit Checker(const Reader& reader) : r_(reader), t_(reader.tokens()) {
    for (const Function& f : r_.functions()) {
      if (!f.owner.empty() && f.name != "operator()") continue;  // other members: called through objects
      Spaces& s = f.owner.empty() ? free_[f.name] : call_operators_[f.owner];
      s.device_callable |= f.device;
      s.host_callable |= f.host_only() || f.host;
    }
  }

  std::vector<Finding> run() {
    for (const Function& f : r_.functions()) {
      if (f.global && f.return_type != "void" && !f.return_type.empty())
        add(f.line, f.full_name() + " is a __global__ function that returns " + f.return_type +
                        ": a kernel returns void and writes its results to memory, as nvcc requires "
                        "(docs/emulator.md)");
      if (f.body == 0) continue;
      if (f.device_code()) device_body(f);
      if (f.host_only()) host_body(f);
    }
    return findings_;
  }

 private:
  bool host_only_function(const std::string& name) const {
    auto it = free_.find(name);
    return it != free_.end() && !it->second.device_callable;
  }
  bool device_only_function(const std::string& name) const {
    auto it = free_.find(name);
    return it != free_.end() && !it->second.host_callable;
  }
  bool host_only_operator(const std::string& type) const {
    auto it = call_operators_.find(type);
    return it != call_operators_.end() && !it->second.device_callable;
  }

  // The token after an optional template argument list that starts at i.
  std::size_t past_template_arguments(std::size_t i, std::size_t end) const {
    if (i < end && t_[i].text == "<") {
      const std::size_t close = r_.match(i);
      return close < end ? close + 1 : end;
    }
    return i;
  }

  // Whether the identifier at k names a free function of this file (not a member, not another
  // namespace's function, not a local of the same name).
  bool names_free_function(std::size_t k, const std::set<std::string>& locals) const {
    if (locals.count(t_[k].text)) return false;
    const std::string& before = t_[k - 1].text;
    if (before == "." || before == "->") return false;
    if (before == "::") return !t_[k - 2].identifier || r_.namespaces().count(t_[k - 2].text);
    return true;
  }

  // Names a body declares itself ("float add = ...", "auto op = [](...)"), which hide the
  // file's functions of the same name.
  std::set<std::string> locals_of(const Function& f) const {
    std::set<std::string> locals;
    for (std::size_t k = f.params + 1; k < f.body_end; ++k) {
      if (!t_[k].identifier) continue;
      const std::string& before = t_[k - 1].text;
      const std::string& after = t_[k + 1].text;
      const bool typed = (t_[k - 1].identifier && !kNotCalls.count(before)) || before == ">" || before == "*" ||
                         before == "&";
      if (typed && (after == "=" || after == ";" || after == "," || after == "[" || after == ")" ||
                    (after == "{" && k > f.body)))
        locals.insert(t_[k].text);
    }
    return locals;
  }

  void device_body(const Function& f) {
    const std::set<std::string> locals = locals_of(f);
    // Objects of a struct whose operator() has no __device__: parameters and locals.
    std::set<std::string> host_functors;
    for (std::size_t k = f.params + 1; k + 1 < f.body_end; ++k) {
      if (!t_[k].identifier || !host_only_operator(t_[k].text)) continue;
      std::size_t v = past_template_arguments(k + 1, f.body_end);
      while (v < f.body_end && (t_[v].text == "&" || t_[v].text == "*" || t_[v].text == "const")) ++v;
      if (v < f.body_end && t_[v].identifier) host_functors.insert(t_[v].text);
    }
    for (std::size_t k = f.body + 1; k < f.body_end; ++k) {
      if (!t_[k].identifier || kNotCalls.count(t_[k].text)) continue;
      const std::size_t open = past_template_arguments(k + 1, f.body_end);
      if (open >= f.body_end || t_[open].text != "(") continue;
      const std::string& name = t_[k].text;
      if (host_only_function(name) && names_free_function(k, locals)) {
        add(t_[k].line, f.full_name() + " calls " + name +
                            ", a host function: mark it __device__ (or __host__ __device__), as nvcc requires "
                            "(docs/emulator.md)");
      } else if (host_functors.count(name) && names_free_function(k, {})) {
        operator_call(f, k);
      } else if (host_only_operator(name) && t_[k - 1].text != "." && t_[k - 1].text != "->") {
        // Sum()(a, b) or Sum{}(a, b): a temporary called at once
        const std::size_t close = r_.match(open);
        if (close + 1 < f.body_end && t_[close + 1].text == "(") operator_call(f, k);
      }
    }
    // Sum{}(a, b)
    for (std::size_t k = f.body + 1; k + 3 < f.body_end; ++k)
      if (t_[k].identifier && host_only_operator(t_[k].text) && t_[k + 1].text == "{" && t_[k + 2].text == "}" &&
          t_[k + 3].text == "(")
        operator_call(f, k);
  }

  void operator_call(const Function& f, std::size_t k) {
    add(t_[k].line, f.full_name() + " calls " + type_of_functor(k) +
                        "::operator(), a host function: mark it __device__ (or __host__ __device__), as nvcc "
                        "requires (docs/emulator.md)");
  }

  std::string type_of_functor(std::size_t k) const {
    if (call_operators_.count(t_[k].text)) return t_[k].text;
    // an object: find its declaration's type
    for (std::size_t j = k; j-- > 1;)
      if (t_[j].text == t_[k].text && t_[j].identifier) {
        std::size_t type = j - 1;
        while (type > 0 && (t_[type].text == "&" || t_[type].text == "*" || t_[type].text == "const")) --type;
        if (t_[type].text == ">") {
          int depth = 0;
          for (; type > 0; --type) {
            if (t_[type].text == ">") ++depth;
            if (t_[type].text == "<" && --depth == 0) break;
          }
          --type;
        }
        if (call_operators_.count(t_[type].text)) return t_[type].text;
      }
    return t_[k].text;
  }

  void host_body(const Function& f) {
    const std::set<std::string> locals = locals_of(f);
    for (std::size_t k = f.body + 1; k < f.body_end; ++k) {
      if (!t_[k].identifier || kNotCalls.count(t_[k].text)) continue;
      const std::size_t open = past_template_arguments(k + 1, f.body_end);
      if (open >= f.body_end || t_[open].text != "(") continue;
      if (device_only_function(t_[k].text) && names_free_function(k, locals))
        add(t_[k].line, f.full_name() + " calls " + t_[k].text +
                            ", a __device__ function, from host code: mark it __host__ __device__ if the host "
                            "needs it too, as nvcc requires (docs/emulator.md)");
    }
  }

  void add(int line, const std::string& message) {
    for (const Finding& seen : findings_)
      if (seen.line == line && seen.message == message) return;
    findings_.push_back({line, message});
  }

  const Reader& r_;
  const std::vector<Token>& t_;
  std::map<std::string, Spaces> free_;            // free functions, by name
  std::map<std::string, Spaces> call_operators_;  // structs' operator(), by struct
  std::vector<Finding> findings_;
};

}  // namespace

std::vector<Finding> check_execution_spaces(const std::string& source) {
  // Object-like macros whose text holds execution-space specifiers.
  std::map<std::string, std::set<std::string>> spelled;
  static const std::regex kDefine(R"(^\s*#\s*define\s+([A-Za-z_]\w*)\s+(.*)$)");
  std::istringstream lines(source);
  std::string line;
  std::smatch define;
  while (std::getline(lines, line))
    if (std::regex_match(line, define, kDefine))
      for (const Token& token : tokenize(define[2]))
        if (token.text == "__global__" || token.text == "__device__" || token.text == "__host__")
          spelled[define[1]].insert(token.text);
  const Reader reader(tokenize(source), std::move(spelled));
  return Checker(reader).run();
}

}  // namespace reduce_lab::spaces
