// html_report.hpp -- dalstress's --html: the HTML report (docs/html-report.md).
//
// WHY THE PAGE IS COMPILED IN.  The page (template, style, script, uPlot) is
// the JS drivers' own, stress/report/; the build turns it into a C++ source
// (stress/report/page-source.js), and dalstress puts the monitor's JSON
// between its two halves.  The alternative, running the JS renderer in a
// child node process, would make a native driver's report depend on a
// JavaScript runtime and a checkout at run time; this way the page is fixed
// when dalstress is built, and dalstress stays one binary beside its libraries.
#pragma once

#include <string>
#include <string_view>

namespace dalstress {

// The page around the report's JSON (generated; see above).  When the build
// had no node_modules/uplot, kHtmlPageBuilt is false and kHtmlPageHead holds
// the reason instead.
extern const bool kHtmlPageBuilt;
extern const std::string_view kHtmlPageHead;
extern const std::string_view kHtmlPageTail;

// The page for the monitor's JSON report `json`.  Every '<' becomes \u003c,
// the rule of stress/report/html.js embedJson(): in JSON a '<' stands only
// inside strings, where the escape means the same character, and no
// "</script>" or "<!--" can end the page's data block early.
std::string html_report(std::string_view json);

}  // namespace dalstress
