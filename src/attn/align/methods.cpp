#include "attn/align/methods.hpp"

#include "attn/align/internal/names.hpp"
#include "attn/core/error.hpp"

namespace attn {

namespace {

const std::vector<AlignMethodInfo> methods = {
    // method, name, description, needs: model, reverse, statistical; reads the threshold
    {AlignMethod::argmax, "argmax", "each target word's most attended source word", true, false, false, false},
    {AlignMethod::threshold, "threshold", "every word pair whose attention reaches the threshold", true, false, false,
     true},
    {AlignMethod::itermax, "itermax", "SimAlign's itermax on the attention matrix", true, false, false, false},
    {AlignMethod::intersection, "intersection", "argmax links of both directions' models, intersected", true, true,
     false, false},
    {AlignMethod::union_, "union", "argmax links of both directions' models, united", true, true, false, false},
    {AlignMethod::grow_diag_final_and, "grow-diag-final-and",
     "argmax links of both directions' models, grow-diag-final-and", true, true, false, false},
    {AlignMethod::soft_intersection, "soft-itermax", "itermax over the mean of both directions' attention", true, true,
     false, false},
    {AlignMethod::soft_threshold, "soft-threshold",
     "every word pair whose attention averaged over both directions' models reaches the threshold", true, true, false,
     true},
    {AlignMethod::soft_agreement, "soft-agreement",
     "every word pair whose attention's geometric mean over both directions' models reaches the threshold: both "
     "must attend",
     true, true, false, true},
    // the pair's own threshold where its method reads one (pair_options), not the caller's
    {AlignMethod::attention, "attention",
     "the language pair's best attention-only method, chosen on its dev set (attn --help names it per pair)", true,
     true, false, false},
    {AlignMethod::hybrid, "hybrid", "both directions' attention mixed with a statistical aligner's posteriors", true,
     true, true, false},
    {AlignMethod::hmm, "hmm", "the HMM aligner alone (statistical, for comparison)", false, false, true, false},
    {AlignMethod::ibm2, "ibm2", "IBM Model 2 alone (fast_align's model, for comparison)", false, false, true, false},
};

template <class Enum>
struct Named {
  Enum value;
  const char* name;
};

const Named<StatisticalKind> statistical_kinds[] = {{StatisticalKind::ibm2, "ibm2"}, {StatisticalKind::hmm, "hmm"}};
const Named<Mix> mixes[] = {{Mix::linear, "linear"}, {Mix::geometric, "geometric"}};
const Named<Symmetrization> symmetrizations[] = {{Symmetrization::grow_diag_final_and, "grow-diag-final-and"},
                                                 {Symmetrization::posterior_mean, "posterior"}};

template <class Table>
std::vector<std::string> names_of(const Table& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.name);
  return names;
}

template <class Table>
auto parse_in(const Table& table, const std::string& name, const char* what) -> decltype(table[0].value) {
  for (const auto& entry : table) {
    if (name == entry.name) return entry.value;
  }
  fail("unknown ", what, " '", name, "' (known: ", detail::comma_joined(names_of(table)), ")");
}

template <class Table, class Enum>
const char* name_in(const Table& table, Enum value) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

// AlignMethodInfo's fields under the names the templates above read.
struct MethodEntry {
  AlignMethod value;
  const char* name;
};
std::vector<MethodEntry> method_entries() {
  std::vector<MethodEntry> entries;
  for (const AlignMethodInfo& m : methods) entries.push_back({m.method, m.name});
  return entries;
}

}  // namespace

const std::vector<AlignMethodInfo>& align_methods() { return methods; }

const AlignMethodInfo& info(AlignMethod method) {
  for (const AlignMethodInfo& m : methods) {
    if (m.method == method) return m;
  }
  fail("unknown alignment method ", static_cast<int>(method));
}

AlignMethod parse_align_method(const std::string& name) { return parse_in(method_entries(), name, "alignment method"); }
StatisticalKind parse_statistical_kind(const std::string& name) {
  return parse_in(statistical_kinds, name, "statistical aligner");
}
Mix parse_mix(const std::string& name) { return parse_in(mixes, name, "mix"); }
Symmetrization parse_symmetrization(const std::string& name) {
  return parse_in(symmetrizations, name, "symmetrization");
}

const char* to_string(AlignMethod method) { return info(method).name; }
const char* to_string(StatisticalKind kind) { return name_in(statistical_kinds, kind); }
const char* to_string(Mix mix) { return name_in(mixes, mix); }
const char* to_string(Symmetrization symmetrization) { return name_in(symmetrizations, symmetrization); }

std::vector<std::string> align_method_names() { return names_of(method_entries()); }
std::vector<std::string> statistical_kind_names() { return names_of(statistical_kinds); }
std::vector<std::string> mix_names() { return names_of(mixes); }
std::vector<std::string> symmetrization_names() { return names_of(symmetrizations); }

StatisticalKind statistical_kind(AlignMethod method) {
  if (method == AlignMethod::ibm2) return StatisticalKind::ibm2;
  if (method == AlignMethod::hmm) return StatisticalKind::hmm;
  return align_defaults.statistical;
}

}  // namespace attn
