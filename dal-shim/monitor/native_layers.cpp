#include "native_layers.hpp"

#include <algorithm>
#include <map>

#include "concat.hpp"

namespace dalmon {

namespace {

// One layer before ranking: the DSO indices it sums.
struct Group {
  std::string name;
  std::vector<int> indices;
  std::vector<std::string> dsos;
};

NativeLayer build(const RunParams& p, const std::vector<Sample>& samples, Group g, bool available, double boundary) {
  NativeLayer L;
  L.name = std::move(g.name);
  L.dsos = std::move(g.dsos);
  L.values.reserve(samples.size());
  MetricSeries series;
  for (const Sample& s : samples) {
    int64_t v = -1;
    if (available) {
      v = 0;
      for (int i : g.indices)
        if (static_cast<size_t>(i) < s.dso_bytes.size() && s.dso_bytes[i] > 0) v += s.dso_bytes[i];
    }
    L.values.push_back(v);
    series.add(static_cast<double>(s.queries), v);
  }
  L.summary = series.summarize(boundary);
  // The malloc layer's rule for a byte series: the native layers are byte
  // layers like it, with thresholds of their own (RunParams::native_threshold).
  L.verdict =
      LeakDetector::judge(Layer::Malloc, series, L.summary, p.native_threshold, p.min_samples, unit_words(p.unit).name);
  return L;
}

}  // namespace

std::vector<NativeLayer> native_layers(const RunParams& p, const std::vector<Sample>& samples, const TracerFacts& facts,
                                       double boundary) {
  std::vector<NativeLayer> out;
  if (!facts.present || samples.empty()) return out;

  // Group by layer name: the executable is native:runtime, every other DSO
  // native:<file name> (two copies of one library under different paths are
  // one layer: the name is what the report can show).
  Group runtime{std::string(kRuntimeLayer), {}, {}};
  std::map<std::string, Group> by_name;
  for (size_t i = 0; i < facts.dsos.size(); ++i) {
    const DsoInfo& d = facts.dsos[i];
    Group& g = d.main ? runtime : by_name[dalkit::concat(kNativePrefix, d.name)];
    if (g.name.empty()) g.name = dalkit::concat(kNativePrefix, d.name);
    g.indices.push_back(static_cast<int>(i));
    g.dsos.push_back(d.path.empty() ? d.name : d.path);
  }

  // A DSO that never held a byte at a sample ([vdso], most of libc's
  // neighbours) is no layer: neither shown nor counted in native:others.
  std::vector<NativeLayer> ranked;
  std::vector<std::string> held;  // names of the layers kept
  for (auto& [name, g] : by_name) {
    NativeLayer L = build(p, samples, std::move(g), true, boundary);
    if (L.summary.peak > 0) {
      held.push_back(L.name);
      ranked.push_back(std::move(L));
    }
  }
  // Rank by what the verdict judges: growth after warm-up (a leaking DSO is
  // always among the shown ones, whatever its size), or the end value when
  // the run ended inside warm-up; ties by name, so the order is stable.
  auto key = [](const NativeLayer& L) {
    return L.summary.post_warmup_samples > 0 ? L.summary.growth_after_warmup : L.summary.end;
  };
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](const NativeLayer& a, const NativeLayer& b) { return key(a) > key(b); });

  const size_t shown = std::min<size_t>(ranked.size(), kShownDsoLayers);
  Group others{std::string(kOthersLayer), {}, {}};
  for (size_t r = shown; r < ranked.size(); ++r) {
    for (const std::string& d : ranked[r].dsos) others.dsos.push_back(d);
  }
  // native:others sums the same DSO indices its members summed.
  for (size_t i = 0; i < facts.dsos.size(); ++i) {
    const DsoInfo& d = facts.dsos[i];
    if (d.main) continue;
    const std::string name = dalkit::concat(kNativePrefix, d.name);
    const bool is_shown = std::any_of(ranked.begin(), ranked.begin() + static_cast<long>(shown),
                                      [&](const NativeLayer& L) { return L.name == name; });
    const bool is_held = std::find(held.begin(), held.end(), name) != held.end();
    if (is_held && !is_shown) others.indices.push_back(static_cast<int>(i));
  }

  for (size_t r = 0; r < shown; ++r) out.push_back(std::move(ranked[r]));
  out.push_back(build(p, samples, std::move(runtime), facts.runtime_heap_visible, boundary));
  if (!others.indices.empty()) out.push_back(build(p, samples, std::move(others), true, boundary));
  return out;
}

}  // namespace dalmon
