#include "ascendc_cores.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <regex>
#include <set>

namespace tessera::cli {
namespace {

bool IsIdent(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Positions of `word` as a whole identifier in `text`.
std::vector<size_t> FindWord(std::string_view text, std::string_view word) {
  std::vector<size_t> at;
  for (size_t pos = text.find(word); pos != std::string_view::npos;
       pos = text.find(word, pos + 1)) {
    const size_t end = pos + word.size();
    if ((pos == 0 || !IsIdent(text[pos - 1])) && (end == text.size() || !IsIdent(text[end]))) {
      at.push_back(pos);
    }
  }
  return at;
}

bool HasWord(std::string_view text, std::string_view word) {
  return !FindWord(text, word).empty();
}

// The index just past the bracket matching the one at `open`, or npos when it is not closed.
size_t PastMatching(std::string_view text, size_t open) {
  const char o = text[open];
  const char c = o == '(' ? ')' : '}';
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == o) ++depth;
    if (text[i] == c && --depth == 0) return i + 1;
  }
  return std::string_view::npos;
}

// True when the line holding `pos` is a preprocessor directive (a macro that spells __global__).
bool InDirective(std::string_view text, size_t pos) {
  const size_t line = text.rfind('\n', pos);
  const size_t first = text.find_first_not_of(" \t", line == std::string_view::npos ? 0 : line + 1);
  return first != std::string_view::npos && text[first] == '#';
}

// The class a kernel's declaration or body states (rules 1 and 2), or "" when it states none.
std::string StatedClass(std::string_view head, std::string_view body) {
  if (HasWord(head, "__mix__")) return "mix";
  if (HasWord(head, "__cube__")) return "cube";
  if (HasWord(head, "__vector__")) return "vector";
  static const std::regex task(R"(KERNEL_TASK_TYPE_DEFAULT\s*\(\s*KERNEL_TYPE_(\w+))");
  std::match_results<std::string_view::const_iterator> m;
  if (std::regex_search(body.begin(), body.end(), m, task)) {
    const std::string type = m[1].str();
    if (type == "AIV_ONLY" || type == "MIX_AIV_1_0") return "vector";
    if (type == "AIC_ONLY" || type == "MIX_AIC_1_0") return "cube";
    if (type == "MIX_AIC_1_1" || type == "MIX_AIC_1_2") return "mix";
  }
  return "";
}

// Rule 3: the class of a kernel that states none, from the APIs all of the sample's sources use.
std::string InferredClass(const std::vector<std::string>& sources) {
  static const std::regex matmul(R"(\bMatmul(Impl)?\s*<|\bREGIST_MATMUL_OBJ\b)");
  static const std::regex cube(
      R"(\b(Mmad\w*|LoadData\w*|Fixpipe|SetFixPipeConfig)\b|\b(TPosition|QuePosition)::(A1|B1|A2|B2|C1|C2|CO1|CO2)\b)");
  static const std::regex vector(R"(\b(TPosition|QuePosition)::(VECIN|VECOUT|VECCALC)\b)");
  bool uses_matmul = false;
  bool uses_cube = false;
  bool uses_vector = false;
  bool cube_only = false;
  for (const std::string& s : sources) {
    uses_matmul = uses_matmul || std::regex_search(s, matmul);
    uses_cube = uses_cube || std::regex_search(s, cube);
    uses_vector = uses_vector || std::regex_search(s, vector);
    cube_only = cube_only || HasWord(s, "ASCENDC_CUBE_ONLY");
  }
  if (uses_matmul) return cube_only ? "cube" : "mix";
  if (uses_cube) return uses_vector ? "mix" : "cube";
  return "vector";
}

// `source` without comments; with `blank_literals`, string and character literals keep only
// their quotes (a kernel's printf text names no API).
std::string Strip(std::string_view source, bool blank_literals) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size();) {
    const char c = source[i];
    if (c == '/' && i + 1 < source.size() && source[i + 1] == '/') {
      i = source.find('\n', i);
      if (i == std::string_view::npos) break;
    } else if (c == '/' && i + 1 < source.size() && source[i + 1] == '*') {
      const size_t end = source.find("*/", i + 2);
      out += ' ';
      i = end == std::string_view::npos ? source.size() : end + 2;
    } else if (c == '"' || (c == '\'' && (i == 0 || !IsIdent(source[i - 1])))) {
      // A literal up to its closing quote, escapes included (a "//" inside is not a comment); a
      // quote after a digit or letter is a digit separator (1'000). An unclosed literal ends at
      // its line's end, keeping the newline so the next line stays a line of its own.
      size_t j = i + 1;
      while (j < source.size() && source[j] != c && source[j] != '\n')
        j += source[j] == '\\' ? 2 : 1;
      j = std::min(j, source.size());
      if (j < source.size() && source[j] == c) ++j;
      if (blank_literals) {
        out += c;
        out += c;
      } else {
        out.append(source.substr(i, j - i));
      }
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string StripComments(std::string_view source) {
  return Strip(source, false);
}

CoresClass ClassifyCores(const std::vector<std::string>& sources) {
  std::vector<std::string> stripped;
  stripped.reserve(sources.size());
  for (const std::string& s : sources)
    stripped.push_back(Strip(s, true));
  std::set<std::string> classes;
  bool infer = false;
  for (const std::string& text : stripped) {
    const std::string_view t(text);
    for (const size_t pos : FindWord(t, "__global__")) {
      if (InDirective(t, pos)) continue;
      // The declaration runs from the end of the previous statement or block to the parameter
      // list: the first '(' after __global__ that is not that of a __mix__ written after it.
      const size_t prev = t.substr(0, pos).find_last_of(";{}");
      size_t start = prev == std::string_view::npos ? 0 : prev + 1;
      // Nor does it include a preprocessor line before it (`#define KERNEL __global__ __cube__`).
      for (size_t nl = t.find('\n', start); nl != std::string_view::npos && nl < pos;
           nl = t.find('\n', nl + 1)) {
        if (InDirective(t, nl == 0 ? 0 : nl - 1)) start = nl + 1;
      }
      size_t paren = t.find('(', pos);
      const std::vector<size_t> mixes = FindWord(t.substr(0, paren), "__mix__");
      if (!mixes.empty() && mixes.back() > pos && paren != std::string_view::npos) {
        const size_t past = PastMatching(t, paren);
        paren = past == std::string_view::npos ? past : t.find('(', past);
      }
      if (paren == std::string_view::npos) continue;
      const std::string_view head = t.substr(start, paren - start);
      std::string_view body;
      const size_t params_end = PastMatching(t, paren);
      if (params_end != std::string_view::npos) {
        const size_t open = t.find_first_not_of(" \t\r\n", params_end);
        if (open != std::string_view::npos && t[open] == '{') {
          const size_t close = PastMatching(t, open);
          body = t.substr(open, close == std::string_view::npos ? t.npos : close - open);
        }
      }
      const std::string stated = StatedClass(head, body);
      if (stated.empty()) {
        infer = true;
      } else {
        classes.insert(stated);
      }
    }
  }
  infer = infer || classes.empty();
  if (infer) classes.insert(InferredClass(stripped));
  return CoresClass{classes.size() == 1 ? *classes.begin() : "mix", infer};
}

}  // namespace tessera::cli
