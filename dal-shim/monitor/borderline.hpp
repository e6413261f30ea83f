// borderline.hpp -- whether a layer's verdict is close to its thresholds.
//
// The one definition of "borderline" (docs/leak-verdict.md, "Borderline
// verdicts"), which `--confirm` acts on in every driver: a verdict that a
// longer run of the same work could turn over.  A leak is borderline when
// any of its three conditions holds narrowly or its growth slowed down in
// the last window; "no leak" is borderline when every condition it failed
// missed narrowly.
#pragma once

#include <string>
#include <string_view>

#include "leak_detector.hpp"
#include "metric_series.hpp"

namespace dalmon {

struct Borderline {
  bool borderline = false;
  std::string reason;  // which conditions are close, with their figures; "" if not borderline
};

// v: a verdict of LeakDetector::judge with its figures filled in; s: the
// summary it was judged on; per: "query" or "iteration", for the reason.
// Layers that are not Leak or NoLeak are never borderline.
Borderline classify_borderline(const LayerVerdict& v, const SeriesSummary& s, std::string_view per);

}  // namespace dalmon
