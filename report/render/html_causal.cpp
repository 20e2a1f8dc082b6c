#include "report/render/html_causal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "report/causal/without_prediction_lines.h"
#include "report/render/html_escape.h"
#include "report/render/text_util.h"

namespace cprof::report {
namespace {

// Plot geometry (px): room on the left for the y ticks and label, below for the x ones.
constexpr double kWidth = 520, kHeight = 300;
constexpr double kLeft = 64, kRight = 16, kTop = 14, kBottom = 46;
constexpr double kPlotW = kWidth - kLeft - kRight;
constexpr double kPlotH = kHeight - kTop - kBottom;

// A step of 1, 2 or 5 times a power of ten that cuts `range` into about five ticks.
double nice_step(double range) {
  const double raw = range / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (raw <= m * mag) return m * mag;
  }
  return 10 * mag;
}

struct Scale {
  double lo = 0, hi = 0;  // program speedup (fraction) at the bottom and top
  double step = 0.1;

  double x(double speedup) const { return kLeft + speedup * kPlotW; }
  double y(double v) const { return kTop + (hi - v) / (hi - lo) * kPlotH; }
};

// y covers 0, every point and every interval bound, rounded out to whole ticks.
Scale y_scale(const causal::LocationPrediction& p) {
  double lo = 0, hi = 0;
  for (const auto& pt : p.points) {
    for (const double v : {pt.program_speedup, pt.ci_low, pt.ci_high}) {
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (hi - lo < 0.05) hi = lo + 0.05;  // a flat curve still gets a readable axis
  Scale s;
  s.step = nice_step(hi - lo);
  // The tolerance keeps a bound that sits on a tick (0, say) from adding a step.
  s.lo = std::floor(lo / s.step + 1e-9) * s.step;
  s.hi = std::ceil(hi / s.step - 1e-9) * s.step;
  if (s.hi - s.lo < s.step) s.hi = s.lo + s.step;
  return s;
}

std::string percent_label(double fraction, double step) {
  const int decimals = step * 100 >= 1 ? 0 : (step * 100 >= 0.1 ? 1 : 2);
  return fmt::format("{:.{}f}%", fraction * 100, decimals);
}

void axes(std::string& out, const Scale& s) {
  auto o = std::back_inserter(out);
  const double x0 = kLeft, x1 = kLeft + kPlotW, y0 = kTop, y1 = kTop + kPlotH;
  fmt::format_to(o, "<g class=\"axes\" stroke=\"#444\" fill=\"none\">"
                    "<line x1=\"{0}\" y1=\"{3}\" x2=\"{1}\" y2=\"{3}\"/>"
                    "<line x1=\"{0}\" y1=\"{2}\" x2=\"{0}\" y2=\"{3}\"/></g>\n",
                 x0, x1, y0, y1);
  // x: line speedup 0..100% every 20%; y: the nice steps, with light grid lines.
  for (int i = 0; i <= 5; ++i) {
    const double x = s.x(i / 5.0);
    fmt::format_to(o, "<line class=\"tick\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" "
                      "stroke=\"#444\"/><text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">"
                      "{4}%</text>\n",
                   x, y1, y1 + 5, y1 + 17, i * 20);
  }
  const int ticks = static_cast<int>(std::lround((s.hi - s.lo) / s.step));
  for (int i = 0; i <= ticks; ++i) {
    const double v = s.lo + i * s.step;
    const double y = s.y(v);
    fmt::format_to(o, "<line class=\"grid\" x1=\"{0}\" y1=\"{2:.1f}\" x2=\"{1}\" y2=\"{2:.1f}\" "
                      "stroke=\"{3}\"/><line class=\"tick\" x1=\"{4}\" y1=\"{2:.1f}\" x2=\"{0}\" "
                      "y2=\"{2:.1f}\" stroke=\"#444\"/><text x=\"{5}\" y=\"{6:.1f}\" "
                      "text-anchor=\"end\">{7}</text>\n",
                   x0, x1, y, std::abs(v) < s.step * 1e-6 ? "#999" : "#eee", x0 - 5, x0 - 8, y + 4,
                   percent_label(std::abs(v) < s.step * 1e-6 ? 0.0 : v, s.step));
  }
  fmt::format_to(o, "<text class=\"xlabel\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">line speedup"
                    "</text>\n<text class=\"ylabel\" transform=\"translate(14,{}) rotate(-90)\" "
                    "text-anchor=\"middle\">program speedup</text>\n",
                 kLeft + kPlotW / 2, kHeight - 6, kTop + kPlotH / 2);
}

}  // namespace

std::string causal_plot_svg(const causal::LocationPrediction& p) {
  std::string out;
  auto o = std::back_inserter(out);
  const Scale s = y_scale(p);
  fmt::format_to(o, "<svg class=\"causal-plot\" xmlns=\"http://www.w3.org/2000/svg\" "
                    "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
                    "font-family=\"sans-serif\" font-size=\"11\">\n<title>{2}</title>\n",
                 kWidth, kHeight, html_escape(p.location));
  axes(out, s);
  // The 95% band: upper bounds left to right, then lower bounds back. Points without an
  // interval (fewer than two experiments on a side) are left out of it, not faked.
  std::vector<const causal::PredictionPoint*> banded;
  for (const auto& pt : p.points) {
    if (std::isfinite(pt.ci_low) && std::isfinite(pt.ci_high)) banded.push_back(&pt);
  }
  if (banded.size() >= 2) {
    out += "<polygon class=\"ci\" fill=\"#4a7bd0\" fill-opacity=\"0.2\" stroke=\"none\" points=\"";
    for (const auto* pt : banded) fmt::format_to(o, "{:.1f},{:.1f} ", s.x(pt->speedup), s.y(pt->ci_high));
    for (auto it = banded.rbegin(); it != banded.rend(); ++it) {
      fmt::format_to(o, "{:.1f},{:.1f} ", s.x((*it)->speedup), s.y((*it)->ci_low));
    }
    out.back() = '"';
    out += "/>\n";
  } else if (banded.size() == 1) {  // one interval: a whisker, since a band needs two
    const auto* pt = banded.front();
    fmt::format_to(o, "<line class=\"ci\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" "
                      "y2=\"{2:.1f}\" stroke=\"#4a7bd0\" stroke-width=\"3\" stroke-opacity=\"0.4\"/>\n",
                   s.x(pt->speedup), s.y(pt->ci_high), s.y(pt->ci_low));
  }
  if (!p.points.empty()) {
    out += "<path class=\"curve\" fill=\"none\" stroke=\"#1f4e9c\" stroke-width=\"1.5\" d=\"";
    char cmd = 'M';
    for (const auto& pt : p.points) {
      fmt::format_to(o, "{}{:.1f},{:.1f} ", cmd, s.x(pt.speedup), s.y(pt.program_speedup));
      cmd = 'L';
    }
    out.back() = '"';
    out += "/>\n";
  }
  for (const auto& pt : p.points) {
    const std::string ci = std::isfinite(pt.ci_low)
                               ? fmt::format(", 95% CI [{:.1f}%, {:.1f}%]", pt.ci_low * 100,
                                             pt.ci_high * 100)
                               : std::string(", no interval (fewer than 2 experiments)");
    fmt::format_to(o,
                   "<circle class=\"pt\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"#1f4e9c\">"
                   "<title>line {:.0f}% faster: program {:.1f}%{}; {}</title>"
                   "</circle>\n",
                   s.x(pt.speedup), s.y(pt.program_speedup), pt.speedup * 100,
                   pt.program_speedup * 100, ci, plural(pt.experiments, "experiment"));
  }
  out += "</svg>";
  return out;
}

void html_causal_section(std::string& out, const CausalModel& m) {
  if (m.empty()) {
    out += "<section id=\"causal\"></section>\n";
    return;
  }
  auto o = std::back_inserter(out);
  out += "<section id=\"causal\">\n<h2>Causal profile</h2>\n";
  if (m.experiments > 0) {
    fmt::format_to(o,
                   "<p class=\"note\">{}{}; predicted program speedup against "
                   "line speedup, 95% bootstrap confidence band, ranked by impact. Minimum "
                   "evidence: {} experiments per speedup and baseline, {} speedups.</p>\n",
                   plural(m.experiments, "experiment"),
                   m.end_to_end_runs > 0
                       ? fmt::format(" ({})", plural(m.end_to_end_runs, "end-to-end run"))
                       : std::string(),
                   kMinExperimentsPerPoint, kMinSpeedups);
  }
  if (m.experiments > 0 && m.predictions.empty()) {
    fmt::format_to(o, "<p class=\"note\">No prediction: no location has both baseline (0%) and "
                      "sped-up experiments {}with progress yet; run longer.</p>\n",
                   m.without_prediction.empty() ? "" : "that reached it ");
  }
  if (const std::string note = few_runs_note(m); !note.empty()) {
    fmt::format_to(o, "<p class=\"note\" id=\"few-runs\">{}.</p>\n", html_escape(note));
  }
  size_t index = 0;
  for (const auto& p : m.predictions) {
    const std::string point = p.progress_point.empty() ? "end to end" : p.progress_point;
    fmt::format_to(o, "<figure class=\"causal\" id=\"causal-{}\">\n<figcaption><b class=\"name\">"
                      "{}</b> &mdash; progress point <span class=\"name\">{}</span></figcaption>\n",
                   index++, html_escape(p.location), html_escape(point));
    out += causal_plot_svg(p);
    out += "\n";
    if (const auto* best = best_point(p)) {
      // What the verdict is worth, in its class: "verdict noise" (out of bounds: the plot
      // is data, not a prediction), "verdict weak" (below the minimum evidence).
      const CurveStatus status = curve_status(p);
      fmt::format_to(o, "<p class=\"verdict{}\">{}</p>\n",
                     status == CurveStatus::out_of_bounds   ? " noise"
                     : status == CurveStatus::weak_evidence ? " weak"
                                                            : "",
                     html_escape(causal_verdict(p, *best)));
    }
    fmt::format_to(o, "<p class=\"note evidence\">{}</p>\n", html_escape(evidence_note(p)));
    if (const std::string n = neighbour_note(p); !n.empty()) {
      fmt::format_to(o, "<p class=\"note neighbours\">{}</p>\n", html_escape(n));
    }
    // The plot shows the measured curve; the phase correction (or why there is none) is
    // said under it, and the verdict above already uses the corrected value.
    if (!p.progress_point.empty()) {
      fmt::format_to(o, "<p class=\"note phase\" data-phase-fraction=\"{:.4f}\">{}</p>\n",
                     p.phase.fraction, html_escape(p.phase.note));
    }
    out += "</figure>\n";
  }
  // Locations that ran experiments but have no curve are named with the reason, after
  // the plots, as the text report does; those with too few experiments for a curve, when
  // many, are one line that opens on their list (without_prediction_lines.h).
  if (!m.without_prediction.empty()) {
    const auto item = [&o](const NoPrediction& n) {
      const std::string point =
          n.progress_point.empty()
              ? std::string("end to end")
              : "<span class=\"name\">" + html_escape(n.progress_point) + "</span>";
      fmt::format_to(o, "<li>no prediction for <span class=\"name\">{}</span> ({}): {}</li>\n",
                     html_escape(n.location), point, html_escape(n.reason));
    };
    const WithoutPredictionLines lines = without_prediction_lines(m.without_prediction);
    out += "<ul class=\"note\" id=\"without-prediction\">\n";
    for (const auto* n : lines.listed) item(*n);
    if (!lines.few.empty()) {
      fmt::format_to(o,
                     "<li><details id=\"without-prediction-few\"><summary>no prediction for "
                     "{}</summary>\n<ul>\n",
                     html_escape(lines.few_summary));
      for (const auto* n : lines.few) item(*n);
      out += "</ul></details></li>\n";
    }
    out += "</ul>\n";
  }
  if (!m.regions.empty()) {
    out += "<h2>Timed regions</h2>\n<table id=\"regions\"><tr><th class=\"name\">region</th>"
           "<th>count</th><th>mean ms</th><th>min ms</th><th>max ms</th><th>stddev ms</th></tr>\n";
    for (const auto& rg : m.regions) {
      fmt::format_to(o, "<tr><td class=\"name\">{}</td><td>{}</td><td>{:.3f}</td><td>{:.3f}</td>"
                        "<td>{:.3f}</td><td>{:.3f}</td></tr>\n",
                     html_escape(rg.name), rg.count, rg.mean_ns / 1e6,
                     static_cast<double>(rg.min_ns) / 1e6, static_cast<double>(rg.max_ns) / 1e6,
                     rg.stddev_ns / 1e6);
    }
    out += "</table>\n";
  }
  out += "</section>\n";
}

}  // namespace cprof::report
