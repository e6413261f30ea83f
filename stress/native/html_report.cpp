#include "html_report.hpp"

namespace dalstress {

std::string html_report(std::string_view json) {
  std::string page;
  page.reserve(kHtmlPageHead.size() + json.size() + json.size() / 64 + kHtmlPageTail.size());
  page.append(kHtmlPageHead);
  for (char c : json) {
    if (c == '<')
      page.append("\\u003c");
    else
      page.push_back(c);
  }
  page.append(kHtmlPageTail);
  return page;
}

}  // namespace dalstress
