#pragma once
// The causal section of the HTML report: per location and progress point (ranked by
// impact, as in the text and json reports) an inline SVG plot of predicted program
// speedup against line speedup with its 95% confidence band, the verdict and the
// evidence note; then the locations without a curve, each with the reason; then the
// timed regions. Drawn here, not by a script: the page has none.

#include <string>

#include "report/causal/causal_model.h"

namespace cprof::report {

// Appends <section id="causal">...</section> (empty without experiments or regions).
void html_causal_section(std::string& out, const CausalModel& model);

// One plot as an <svg> element (exposed for tests).
std::string causal_plot_svg(const causal::LocationPrediction& p);

}  // namespace cprof::report
