// The HTML report of one run (see report.h). Charts are inline SVG drawn with the small Svg helper
// below; every string that came from the database goes through escape() before it reaches the page.
#include "evidence/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string_view>

#include "evidence/config_text.h"
#include "evidence/json_text.h"

namespace evotune::evidence {
namespace {

// A time or rate the charts can draw: finite and above zero (their axes are logarithmic). A database may
// hold anything else (a median of 0, a negative one, inf), which is left out of every chart.
bool chartable(double value) { return std::isfinite(value) && value > 0; }
bool chartable(const std::optional<double>& value) { return value && chartable(*value); }

}  // namespace

ReportInput gather_report_input(const Store& store, std::int64_t run_id, int top_k) {
  std::optional<RunInfo> info = store.run_info(run_id);
  if (!info) throw StoreError(fmt::format("the database holds no run {}", run_id));
  ReportInput input;
  input.info = *info;
  input.schema_version = store.schema_version();
  const std::vector<RunRow> runs = store.runs();
  for (const RunRow& row : runs) {
    if (row.id == run_id) input.run = row;
  }
  if (!input.run.finished_at.empty()) input.finished_at = input.run.finished_at;
  input.trials = store.trials(run_id);
  for (TrialRecord& trial : input.trials) trial.samples_us = {};  // the page draws medians, not samples
  input.top = store.top(run_id, top_k);
  for (TrialRecord& trial : input.top) trial.samples_us = {};
  input.baselines = store.baselines(run_id);
  for (const RunRow& row : runs) {
    if (row.id == run_id || row.family != input.run.family || row.problem != input.run.problem ||
        row.device != input.run.device) {
      continue;
    }
    ComparableRun other{.run = row, .valid = {}};
    for (const TrialRecord& trial : store.trials(row.id)) {
      if (core::is_valid(trial.status) && chartable(trial.median_us))
        other.valid.push_back({trial.seq, *trial.median_us});
    }
    input.comparable_runs.push_back(std::move(other));
  }
  return input;
}

namespace {

// A restrained palette. The three signature colours (run, band, roof) are each painted opaque in one chart
// only, so that the screenshot test (tests/report_screenshot_test.py) finds every chart by its colour; keep
// them unique on the page.
namespace colour {
constexpr const char* kRun =
    "#2563eb";  // this run: opaque only in its best-so-far line; trial dots are translucent
constexpr const char* kWinnerBand = "#fff1e6";  // the winner's value column: tunable panels only
constexpr const char* kRoof = "#0f766e";        // the roofline: roofline chart only
constexpr const char* kWinner = "#ea580c";      // the winner's marker, in every chart
constexpr const char* kBaseline = "#475569";
constexpr const char* kOtherRuns[] = {"#9333ea", "#16a34a", "#b45309", "#db2777", "#0891b2", "#4b5563"};
}  // namespace colour

// ---- text ----

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// 1234567.89 with 1 decimal -> "1,234,567.9"
std::string grouped(double value, int decimals) {
  const std::string digits = fmt::format("{:.{}f}", std::abs(value), decimals);
  const std::size_t integer_digits = std::min(digits.find('.'), digits.size());
  std::string out = value < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && i < integer_digits && (integer_digits - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// Enough digits to tell neighbouring values apart at every scale.
std::string us_text(double us) {
  return grouped(us, us >= 100 ? 1 : us >= 10 ? 2 : 3);
}
std::string tflops_text(double v) {
  return grouped(v, v >= 10 ? 1 : 2);
}
std::string gbps_text(double v) {
  return grouped(v, v >= 100 ? 0 : 1);
}
std::string intensity_text(double v) {
  return grouped(v, v >= 100 ? 0 : v >= 10 ? 1 : 2);
}
std::string ratio_text(double v) {
  return fmt::format("{:.2f}×", v);
}
std::string or_dash(const std::optional<double>& v, std::string (*format)(double)) {
  return v ? format(*v) : "—";
}

// Axis labels: short ("500", "2k", "0.1").
std::string tick_text(double v) {
  if (std::abs(v) >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (std::abs(v) >= 1e3) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", v);
}

std::string run_label(const RunRow& run) {
  return fmt::format("run {} ({})", run.id, run.strategy);
}

// Single-quoted for a POSIX shell when the text holds anything a shell would interpret.
std::string shell_quoted(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_./-+:=,").find(c) != std::string_view::npos;
  });
  if (plain) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::optional<double> as_number(std::string_view text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "name=label,name=label" as the store keeps configs; empty when the text is not of that form (a
// family that stores configs differently simply gets no per-tunable panels).
std::vector<std::pair<std::string, std::string>> parse_config(std::string_view config) {
  return split_config_text(config).value_or(std::vector<std::pair<std::string, std::string>>{});
}

// Seconds since the epoch of a store timestamp ("2026-11-21T18:08:58Z", optionally with fractional
// seconds); NaN when the text is not one.
double epoch_seconds(const std::string& text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  double second = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%lfZ", &year, &month, &day, &hour, &minute, &second) != 6) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const std::chrono::year_month_day date{std::chrono::year(year),
                                         std::chrono::month(static_cast<unsigned>(month)),
                                         std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok()) return std::numeric_limits<double>::quiet_NaN();
  const auto days = std::chrono::sys_days(date).time_since_epoch().count();
  return static_cast<double>(days) * 86400.0 + hour * 3600.0 + minute * 60.0 + second;
}

std::string duration_text(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200)
    return fmt::format("{:.0f} min {:02.0f} s", std::floor(seconds / 60), std::fmod(seconds, 60));
  return fmt::format("{:.0f} h {:02.0f} min", std::floor(seconds / 3600),
                     std::floor(std::fmod(seconds, 3600) / 60));
}

// The time from one store timestamp to another; empty when either is not a timestamp or they are out of
// order.
std::string wall_time_text(const std::string& from, const std::string& to) {
  const double seconds = epoch_seconds(to) - epoch_seconds(from);
  return std::isnan(seconds) || seconds < 0 ? std::string() : duration_text(seconds);
}

// ---- SVG ----

struct Point {
  double x = 0, y = 0;
};

// Maps data values to pixels along one axis, linearly or by log10.
struct Scale {
  double lo = 0, hi = 1;    // data
  double from = 0, to = 1;  // pixels
  bool log = false;
  double operator()(double v) const {
    const double t = log ? std::log10(v / lo) / std::log10(hi / lo) : (v - lo) / (hi - lo);
    return from + t * (to - from);
  }
};

// Steps of 1, 2 or 5 times a power of ten, about `target` of them; none for a range that is not finite
// (its loop would not end).
std::vector<double> linear_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) return {};
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * magnitude;
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  }
  std::vector<double> ticks;
  for (auto i = static_cast<long>(std::ceil(lo / step - 1e-9)); i * step <= hi + step * 1e-9; ++i)
    ticks.push_back(i * step);
  return ticks;
}

// Decades when they give at least three labels, else 1-2-5 within them, else linear steps (a narrow range).
std::vector<double> log_ticks(double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo > 0) || !(hi > lo)) return {};
  for (const std::vector<double>& mantissas : {std::vector<double>{1}, std::vector<double>{1, 2, 5}}) {
    std::vector<double> ticks;
    for (int e = static_cast<int>(std::floor(std::log10(lo)));
         e <= static_cast<int>(std::ceil(std::log10(hi))); ++e) {
      for (double m : mantissas) {
        const double t = m * std::pow(10.0, e);
        if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks.push_back(t);
      }
    }
    if (ticks.size() >= (mantissas.size() == 1 ? 3u : 4u)) return ticks;
  }
  return linear_ticks(lo, hi, 5);
}

// The data range [lo, hi] widened by factors, for a log axis; a single value gets a factor of 2 each side.
std::pair<double, double> log_domain(double lo, double hi, double below, double above) {
  if (hi <= lo) return {lo / 2, hi * 2};
  return {lo / below, hi * above};
}

// Builds one <svg> element. Attribute strings come from this file (classes, colours, geometry); every
// text node and tooltip is escaped here. An element with a coordinate that is not finite (a value the
// charts should have left out) is not drawn, and a polyline or polygon loses such points, so that no
// "nan" or "inf" ever reaches an attribute.
class Svg {
 public:
  Svg(double width, double height, std::string_view description, std::string_view id = {}) {
    body_ = fmt::format(R"(<svg {}viewBox="0 0 {} {}" role="img" aria-label="{}">)",
                        id.empty() ? std::string() : fmt::format(R"(id="{}" )", id), width, height,
                        escape(description));
  }
  void line(double x1, double y1, double x2, double y2, std::string_view attributes) {
    if (!finite({x1, y1, x2, y2})) return;
    body_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" {}/>)", x1, y1, x2, y2,
                         attributes);
  }
  void rect(double x, double y, double width, double height, std::string_view attributes) {
    if (!finite({x, y, width, height})) return;
    body_ += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" {}/>)", x, y, width,
                         height, attributes);
  }
  void polyline(const std::vector<Point>& points, std::string_view attributes) {
    body_ += fmt::format(R"(<polyline fill="none" points="{}" {}/>)", points_text(points), attributes);
  }
  void polygon(const std::vector<Point>& points, std::string_view attributes, std::string_view tooltip = {}) {
    body_ += tooltip.empty() ? fmt::format(R"(<polygon points="{}" {}/>)", points_text(points), attributes)
                             : fmt::format(R"(<polygon points="{}" {}><title>{}</title></polygon>)",
                                           points_text(points), attributes, escape(tooltip));
  }
  void circle(double cx, double cy, double r, std::string_view attributes, std::string_view tooltip = {}) {
    if (!finite({cx, cy, r})) return;
    if (tooltip.empty()) {
      body_ += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{}" {}/>)", cx, cy, r, attributes);
    } else {
      body_ += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{}" {}><title>{}</title></circle>)", cx, cy,
                           r, attributes, escape(tooltip));
    }
  }
  void text(double x, double y, std::string_view content, std::string_view attributes = {}) {
    if (!finite({x, y})) return;
    body_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" {}>{}</text>)", x, y, attributes, escape(content));
  }
  std::string finish() const { return body_ + "</svg>"; }

 private:
  static bool finite(std::initializer_list<double> values) {
    return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
  }
  static std::string points_text(const std::vector<Point>& points) {
    std::string text;
    for (const Point& p : points) {
      if (!finite({p.x, p.y})) continue;
      fmt::format_to(std::back_inserter(text), "{}{:.1f},{:.1f}", text.empty() ? "" : " ", p.x, p.y);
    }
    return text;
  }
  std::string body_;
};

// The plot area inside an SVG, in pixels.
struct Area {
  double left = 0, top = 0, right = 0, bottom = 0;
};

// Approximate width of text in the system sans-serif (DejaVu Sans is among the widest), for laying out
// legends and labels. Counts UTF-8 characters, not bytes.
double text_width(std::string_view text, double font_px = 12) {
  const auto characters = std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; });
  return 0.62 * font_px * static_cast<double>(characters);
}
constexpr double kCalloutPx = 13;  // .callout: 12.5 px, semi-bold

void draw_y_axis(Svg& svg, const Area& area, const Scale& y, const std::vector<double>& ticks,
                 std::string_view label, double label_x) {
  for (double t : ticks) {
    const double py = y(t);
    svg.line(area.left, py, area.right, py, R"(class="grid")");
    svg.text(area.left - 7, py + 4, tick_text(t), R"(text-anchor="end")");
  }
  svg.text(
      0, 0, label,
      fmt::format(
          R"x(class="axis-label" text-anchor="middle" transform="translate({:.1f},{:.1f}) rotate(-90)")x",
          label_x, (area.top + area.bottom) / 2));
  svg.line(area.left, area.top, area.left, area.bottom, R"(class="axis")");
}

void draw_x_axis(Svg& svg, const Area& area, const Scale& x, const std::vector<double>& ticks,
                 std::string_view label) {
  for (double t : ticks) {
    const double px = x(t);
    svg.line(px, area.top, px, area.bottom, R"(class="grid")");
    svg.text(px, area.bottom + 17, tick_text(t), R"(text-anchor="middle")");
  }
  svg.text((area.left + area.right) / 2, area.bottom + 38, label,
           R"(class="axis-label" text-anchor="middle")");
  svg.line(area.left, area.bottom, area.right, area.bottom, R"(class="axis")");
}

// ---- what the charts and tables share ----

// How the report names a reference pipeline: "cuBLAS unfused" for the records attention wrote before they
// carried a label, else the detail's "label", else the record's name.
std::string reference_label(const BaselineRecord& b) {
  const nlohmann::json detail = nlohmann::json::parse(b.detail_json.empty() ? "{}" : b.detail_json, nullptr, false);
  if (detail.is_object() && detail.contains("label") && detail["label"].is_string()) return detail["label"];
  return b.name == "cublas_unfused" ? "cuBLAS unfused" : b.name;
}

struct Facts {
  std::vector<const TrialRecord*> valid;  // ok trials with a time, in seq order
  const TrialRecord* winner = nullptr;
  int last_seq = 0;
  // The latest record of each baseline (a resumed run may have measured them again).
  const BaselineRecord* reference = nullptr;  // a reference pipeline timed like a trial (attention: unfused cuBLAS)
  const BaselineRecord* library = nullptr;    // the strongest library kernel, the headline's bar
  const BaselineRecord* peak_gemm = nullptr;
  const BaselineRecord* peak_copy = nullptr;
  std::optional<double> theoretical_gbps;  // from the device properties JSON, when present
  nlohmann::json device;                   // the device properties, or null
};

Facts facts_of(const ReportInput& input) {
  Facts facts;
  for (const TrialRecord& trial : input.trials) {
    facts.last_seq = std::max(facts.last_seq, trial.seq);
    if (core::is_valid(trial.status) && chartable(trial.median_us)) facts.valid.push_back(&trial);
  }
  // The fastest trial the charts can place (top() ranks a median of 0 or below first).
  for (const TrialRecord& trial : input.top) {
    if (chartable(trial.median_us)) {
      facts.winner = &trial;
      break;
    }
  }
  for (const BaselineRecord& b : input.baselines) {
    const BaselineRole role = baseline_role(b);
    if (role == BaselineRole::reference) facts.reference = &b;
    if (role == BaselineRole::peak_compute && chartable(b.tflops)) facts.peak_gemm = &b;
    if (role == BaselineRole::peak_bandwidth && chartable(b.gbps)) facts.peak_copy = &b;
  }
  facts.library = strongest_library_baseline(input.baselines);
  facts.device = nlohmann::json::parse(input.info.device_json, nullptr, false);
  if (facts.device.is_discarded() || !facts.device.is_object()) facts.device = nullptr;
  if (facts.device.is_object() && facts.device.contains("theoretical_bandwidth_gbps") &&
      facts.device["theoretical_bandwidth_gbps"].is_number() &&
      chartable(facts.device["theoretical_bandwidth_gbps"].get<double>())) {
    facts.theoretical_gbps = facts.device["theoretical_bandwidth_gbps"].get<double>();
  }
  return facts;
}

// A string field of a baseline's detail JSON ("what", "check", "reason"), or empty.
std::string baseline_detail(const BaselineRecord& b, const char* field) {
  const nlohmann::json detail = nlohmann::json::parse(b.detail_json, nullptr, false);
  if (detail.is_object() && detail.contains(field) && detail[field].is_string())
    return detail[field].get<std::string>();
  return {};
}
std::string baseline_what(const BaselineRecord& b) {
  return baseline_detail(b, "what");
}

// (seq, best median so far) at every improvement, drawn as a staircase that ends at the run's last trial.
std::vector<Point> best_so_far_steps(const std::vector<ComparableRun::Point>& valid, int last_seq) {
  std::vector<Point> steps;
  double best = std::numeric_limits<double>::infinity();
  for (const ComparableRun::Point& p : valid) {
    if (!chartable(p.median_us) || p.median_us >= best) continue;
    if (!steps.empty()) steps.push_back({static_cast<double>(p.seq), best});
    steps.push_back({static_cast<double>(p.seq), p.median_us});
    best = p.median_us;
  }
  if (!steps.empty() && last_seq > steps.back().x) steps.push_back({static_cast<double>(last_seq), best});
  return steps;
}

// ---- 1. convergence ----

std::string convergence_section(const ReportInput& input, const Facts& facts) {
  std::string html = R"(<section id="convergence"><h2>Best time so far</h2>)";
  if (facts.valid.empty())
    return html +
           R"(<p class="caption">No valid trial in this run, so there is no time to plot.</p></section>)";

  struct Curve {
    std::string label, colour;
    std::vector<Point> steps;
    double width;
  };
  std::vector<ComparableRun::Point> own;
  for (const TrialRecord* t : facts.valid) own.push_back({t->seq, *t->median_us});
  std::vector<Curve> curves;
  std::size_t other_index = 0;
  for (const ComparableRun& other : input.comparable_runs) {
    const int last_seq = std::max(other.run.trials - 1, other.valid.empty() ? 0 : other.valid.back().seq);
    std::vector<Point> steps = best_so_far_steps(other.valid, last_seq);
    if (steps.empty()) continue;
    curves.push_back({run_label(other.run), colour::kOtherRuns[other_index++ % std::size(colour::kOtherRuns)],
                      std::move(steps), 1.8});
  }
  curves.push_back(
      {run_label(input.run) + ", this report", colour::kRun, best_so_far_steps(own, facts.last_seq), 2.6});

  double x_max = std::max(1, facts.last_seq), y_min = std::numeric_limits<double>::infinity(), y_max = 0;
  for (const TrialRecord* t : facts.valid) {
    y_min = std::min(y_min, *t->median_us);
    y_max = std::max(y_max, *t->median_us);
  }
  for (const Curve& c : curves) {
    for (const Point& p : c.steps) {
      x_max = std::max(x_max, p.x);
      y_min = std::min(y_min, p.y);
      y_max = std::max(y_max, p.y);
    }
  }

  // The legend flows in rows above the plot, so it never hides data.
  enum class Mark { line, trial_dot, winner_dot };
  struct LegendItem {
    std::string label;
    Mark mark;
    std::string line_colour;
  };
  std::vector<LegendItem> legend;
  legend.push_back({curves.back().label, Mark::line, curves.back().colour});  // this run, drawn last (on top)
  for (std::size_t i = 0; i + 1 < curves.size(); ++i)
    legend.push_back({curves[i].label, Mark::line, curves[i].colour});
  legend.push_back({fmt::format("valid trial of run {}", input.run.id), Mark::trial_dot, ""});
  legend.push_back({"winner", Mark::winner_dot, ""});
  const double width = 1000, left = 76, right = 984;
  std::vector<std::pair<Point, const LegendItem*>> placed;
  double cursor = left, row_y = 16;
  for (const LegendItem& item : legend) {
    const double item_width = 30 + text_width(item.label) + 22;
    if (cursor + item_width > right && cursor > left) {
      cursor = left;
      row_y += 20;
    }
    placed.push_back({{cursor, row_y}, &item});
    cursor += item_width;
  }
  const Area area{left, row_y + 22, right, row_y + 22 + 330};
  const double height = area.bottom + 50;

  Svg svg(width, height,
          fmt::format("Best median time so far against trial number, {}", run_label(input.run)),
          "chart-convergence");
  for (const auto& [at, item] : placed) {
    if (item->mark == Mark::line) {
      svg.line(at.x, at.y - 4, at.x + 24, at.y - 4,
               fmt::format(R"(stroke="{}" stroke-width="2.6")", item->line_colour));
    } else if (item->mark == Mark::trial_dot) {
      svg.circle(at.x + 12, at.y - 4, 3, R"(class="trial-dot")");
    } else {
      svg.circle(at.x + 12, at.y - 4, 5, R"(class="winner-dot")");
    }
    svg.text(at.x + 30, at.y, item->label, R"(class="legend")");
  }

  // The staircases are the point of this chart: a few very slow trials (raced configs run 10-100x the best)
  // would squeeze them into the bottom few pixels, so the axis stops above the upper quartile of the run's
  // trials and the start of every staircase; slower trials are pinned to the top edge as triangles.
  std::vector<double> times;
  for (const TrialRecord* t : facts.valid) times.push_back(*t->median_us);
  std::sort(times.begin(), times.end());
  double shown_max = times[times.size() * 3 / 4];
  for (const Curve& c : curves) shown_max = std::max(shown_max, c.steps.front().y);
  shown_max = std::min(y_max, shown_max * 1.3);
  const double hi = shown_max == y_min ? y_min * 2 : shown_max * 1.08;
  // Room under the best for its label: about 30 px of the 330 px plot.
  const double lo = y_min / std::pow(hi / y_min, 30.0 / 300.0);
  const Scale x{0, x_max, area.left, area.right, false};
  const Scale y{lo, hi, area.bottom, area.top, true};
  draw_y_axis(svg, area, y, log_ticks(lo, hi), "median time (µs, log scale)", 18);
  draw_x_axis(svg, area, x, linear_ticks(0, x_max, 10), "trial (order of evaluation)");
  int pinned = 0;
  for (const TrialRecord* t : facts.valid) {
    const std::string tooltip = fmt::format("trial {} (generation {}): {} µs\n{}", t->seq, t->generation,
                                            us_text(*t->median_us), t->config);
    const double px = x(t->seq);
    if (*t->median_us > hi) {
      ++pinned;
      svg.polygon({{px - 3.2, area.top + 6}, {px + 3.2, area.top + 6}, {px, area.top + 0.5}},
                  R"(class="trial-dot")", tooltip);
    } else {
      svg.circle(px, y(*t->median_us), 2.8, R"(class="trial-dot")", tooltip);
    }
  }
  for (const Curve& c : curves) {
    std::vector<Point> pixels;
    for (const Point& p : c.steps) pixels.push_back({x(p.x), y(p.y)});
    svg.polyline(pixels,
                 fmt::format(R"(stroke="{}" stroke-width="{}" stroke-linejoin="round")", c.colour, c.width));
  }
  if (facts.winner) {
    const double wx = x(facts.winner->seq), wy = y(*facts.winner->median_us);
    svg.circle(wx, wy, 5.5, R"(class="winner-dot")");
    const std::string label =
        fmt::format("best {} µs at trial {}", us_text(*facts.winner->median_us), facts.winner->seq);
    const bool fits_right = wx + 8 + text_width(label, kCalloutPx) <= area.right;
    svg.text(fits_right ? wx + 8 : wx - 8, wy + 19, label,
             fmt::format(R"(class="callout" text-anchor="{}")", fits_right ? "start" : "end"));
  }
  html += svg.finish();

  html += R"(<p class="caption">)";
  html += fmt::format(
      "Stepped lines: the best median time after each trial, trials in the order they were evaluated; "
      "dots: the {} valid trials of run {} (of {} recorded). ",
      facts.valid.size(), input.run.id, input.trials.size());
  if (pinned > 0) {
    html +=
        fmt::format("The {} trials slower than {} µs (up to {} µs) are drawn as triangles on the top edge. ",
                    pinned, us_text(hi), us_text(times.back()));
  }
  if (facts.winner) {
    const double best = *facts.winner->median_us;
    int within_five_percent = facts.winner->seq;
    for (const TrialRecord* t : facts.valid) {
      if (*t->median_us <= best * 1.05) {
        within_five_percent = t->seq;
        break;
      }
    }
    html += fmt::format(
        "Run {} found its best, {} µs, at trial {} (generation {}), and was within 5% of it from trial {}. ",
        input.run.id, us_text(best), facts.winner->seq, facts.winner->generation, within_five_percent);
  }
  if (input.comparable_runs.empty()) {
    html +=
        "No other run in this database searched the same problem on the same device, so there is no "
        "other search to compare with.";
  } else {
    for (const ComparableRun& other : input.comparable_runs) {
      html += escape(fmt::format("Run {} ({}, seed {}, {} trials, {} valid): ", other.run.id,
                                 other.run.strategy, other.run.seed, other.run.trials, other.valid.size()));
      if (other.run.best_us && facts.winner) {
        html += fmt::format("best {} µs, {} the time of run {}'s best. ", us_text(*other.run.best_us),
                            ratio_text(*other.run.best_us / *facts.winner->median_us), input.run.id);
      } else {
        html += "no valid trial. ";
      }
    }
  }
  return html + "</p></section>";
}

// ---- 2. median time by tunable ----

struct Tunable {
  std::string name;
  std::vector<std::string> values;  // display order: numeric when every value is a number, else by label
  std::vector<std::vector<const TrialRecord*>> trials_by_value;
  std::vector<double> best_by_value;
  double spread = 1;  // the slowest value's best over the fastest value's best
};

struct TunableRanking {
  std::vector<Tunable> shown;         // the ones whose value matters most, most first
  std::size_t varied = 0;             // how many took more than one value
  std::vector<std::string> constant;  // the ones that took a single value among the valid trials
};

constexpr std::size_t kMaxTunablePanels = 6;

TunableRanking rank_tunables(const std::vector<const TrialRecord*>& valid) {
  std::vector<std::string> names;  // in config order
  std::map<std::string, std::map<std::string, std::vector<const TrialRecord*>>> groups;
  for (const TrialRecord* trial : valid) {
    for (const auto& [name, label] : parse_config(trial->config)) {
      if (!groups.contains(name)) names.push_back(name);
      groups[name][label].push_back(trial);
    }
  }
  TunableRanking ranking;
  std::vector<Tunable> varied;
  for (const std::string& name : names) {
    const auto& by_label = groups[name];
    if (by_label.size() < 2) {
      ranking.constant.push_back(name);
      continue;
    }
    Tunable tunable;
    tunable.name = name;
    for (const auto& entry : by_label) tunable.values.push_back(entry.first);
    const bool numeric = std::all_of(tunable.values.begin(), tunable.values.end(),
                                     [](const std::string& v) { return as_number(v).has_value(); });
    if (numeric) {
      std::sort(tunable.values.begin(), tunable.values.end(),
                [](const std::string& a, const std::string& b) { return *as_number(a) < *as_number(b); });
    }
    for (const std::string& value : tunable.values) {
      const std::vector<const TrialRecord*>& trials = by_label.at(value);
      double best = std::numeric_limits<double>::infinity();
      for (const TrialRecord* t : trials) best = std::min(best, *t->median_us);
      tunable.trials_by_value.push_back(trials);
      tunable.best_by_value.push_back(best);
    }
    const auto [fastest, slowest] =
        std::minmax_element(tunable.best_by_value.begin(), tunable.best_by_value.end());
    tunable.spread = *slowest / *fastest;
    varied.push_back(std::move(tunable));
  }
  ranking.varied = varied.size();
  std::stable_sort(varied.begin(), varied.end(),
                   [](const Tunable& a, const Tunable& b) { return a.spread > b.spread; });
  if (varied.size() > kMaxTunablePanels) varied.resize(kMaxTunablePanels);
  ranking.shown = std::move(varied);
  return ranking;
}

// A deterministic sideways offset in [-0.5, 0.5) per trial, so that a redrawn report is identical.
double jitter(int seq) {
  const double golden = std::numbers::phi - 1;
  return std::fmod(seq * golden, 1.0) - 0.5;
}

std::string tunable_panel(const Tunable& tunable, double lo, double hi, const std::string* winner_value,
                          const TrialRecord* winner) {
  const bool crowded = [&] {
    double widest = 0;
    for (const std::string& v : tunable.values) widest = std::max(widest, text_width(v, 11));
    return widest > 290.0 / static_cast<double>(tunable.values.size()) - 6;
  }();
  const Area area{56, 44, 350, 212};
  const double height = crowded ? 290 : 262;
  Svg svg(360, height, fmt::format("Median time of the valid trials by {}", tunable.name));
  svg.text(area.left, 18, tunable.name, R"(class="panel-title")");
  svg.text(area.left, 34, fmt::format("fastest per value spans {}", ratio_text(tunable.spread)),
           R"(class="panel-note")");

  const double band = (area.right - area.left) / static_cast<double>(tunable.values.size());
  std::size_t winner_index = tunable.values.size();
  for (std::size_t i = 0; i < tunable.values.size(); ++i) {
    if (winner_value && tunable.values[i] == *winner_value) winner_index = i;
  }
  if (winner_index < tunable.values.size()) {
    svg.rect(area.left + band * static_cast<double>(winner_index), area.top, band, area.bottom - area.top,
             fmt::format(R"(fill="{}")", colour::kWinnerBand));
  }
  const Scale y{lo, hi, area.bottom, area.top, true};
  draw_y_axis(svg, area, y, log_ticks(lo, hi), "median (µs)", 14);
  svg.line(area.left, area.bottom, area.right, area.bottom, R"(class="axis")");
  for (std::size_t i = 0; i < tunable.values.size(); ++i) {
    const double centre = area.left + band * (static_cast<double>(i) + 0.5);
    for (const TrialRecord* t : tunable.trials_by_value[i]) {
      svg.circle(centre + jitter(t->seq) * band * 0.62, y(*t->median_us), 2.6, R"(class="trial-dot")",
                 fmt::format("trial {}: {} µs", t->seq, us_text(*t->median_us)));
    }
    const double best_y = y(tunable.best_by_value[i]);
    svg.line(centre - band * 0.38, best_y, centre + band * 0.38, best_y, R"(class="best-tick")");
    const std::string count = fmt::format("n={}", tunable.trials_by_value[i].size());
    if (crowded) {
      svg.text(centre + 3, area.bottom + 12, tunable.values[i],
               fmt::format(R"x(class="category" text-anchor="end" transform="rotate(-35 {:.1f} {:.1f})")x",
                           centre + 3, area.bottom + 12));
    } else {
      svg.text(centre, area.bottom + 17, tunable.values[i], R"(class="category" text-anchor="middle")");
      svg.text(centre, area.bottom + 31, count, R"(class="panel-note" text-anchor="middle")");
    }
  }
  if (winner && winner_index < tunable.values.size()) {
    const double centre = area.left + band * (static_cast<double>(winner_index) + 0.5);
    svg.circle(centre + jitter(winner->seq) * band * 0.62, y(*winner->median_us), 4.6,
               R"(class="winner-dot")",
               fmt::format("winner, trial {}: {} µs", winner->seq, us_text(*winner->median_us)));
  }
  return svg.finish();
}

std::string tunables_section(const Facts& facts) {
  std::string html = R"(<section id="tunables"><h2>Median time by tunable</h2>)";
  if (facts.valid.empty()) return html + R"(<p class="caption">No valid trial in this run.</p></section>)";
  const TunableRanking ranking = rank_tunables(facts.valid);
  if (ranking.shown.empty()) {
    return html +
           R"(<p class="caption">No tunable took more than one value among the valid trials (or the configs )"
           R"(are not of the form name=value,...), so there is nothing to compare.</p></section>)";
  }
  double y_min = std::numeric_limits<double>::infinity(), y_max = 0;
  for (const TrialRecord* t : facts.valid) {
    y_min = std::min(y_min, *t->median_us);
    y_max = std::max(y_max, *t->median_us);
  }
  const auto [lo, hi] = log_domain(y_min, y_max, 1.12, 1.12);
  const auto winner_config =
      facts.winner ? parse_config(facts.winner->config) : std::vector<std::pair<std::string, std::string>>{};
  html += R"(<div class="panels" id="chart-tunables">)";
  for (const Tunable& tunable : ranking.shown) {
    const std::string* winner_value = nullptr;
    for (const auto& [name, label] : winner_config) {
      if (name == tunable.name) winner_value = &label;
    }
    html += tunable_panel(tunable, lo, hi, winner_value, facts.winner);
  }
  html += "</div>";
  html += fmt::format(
      R"(<p class="caption">Each panel groups the {} valid trials by one tunable's value (dots spread sideways so they )"
      R"(do not hide each other; n = trials with that value); all panels share one log-scale time axis. Dark bar: the )"
      R"(fastest trial with that value; shaded column and orange dot: the winner. Shown: the {} of {} varied tunables )"
      R"(whose fastest-per-value times differ most, largest difference first.)",
      facts.valid.size(), ranking.shown.size(), ranking.varied);
  if (!ranking.constant.empty()) {
    std::string names;
    for (const std::string& name : ranking.constant) names += (names.empty() ? "" : ", ") + name;
    html += fmt::format(" Single-valued among the valid trials, so not shown: {}.", escape(names));
  }
  return html + "</p></section>";
}

// ---- 3. roofline ----

std::string roofline_section(const ReportInput& input, const Facts& facts) {
  std::string html = R"(<section id="roofline"><h2>Roofline position of the winner</h2>)";
  if (!facts.winner)
    return html +
           R"(<p class="caption">No valid trial in this run, so there is no winner to place.</p></section>)";
  const TrialRecord& winner = *facts.winner;
  const auto no_roofline = [&](std::string_view why) {
    return html + fmt::format(R"(<p class="caption" id="no-roofline">{}</p></section>)", escape(why));
  };
  if (!winner.tflops || !winner.gbps || *winner.tflops == 0 || *winner.gbps == 0) {
    return no_roofline(kNoRooflineReason);
  }
  struct Marker {
    std::string label, css_class;
    double intensity, tflops;
  };
  auto intensity_of = [](double tflops, double gbps) { return tflops * 1e12 / (gbps * 1e9); };
  // Rates of 0, below 0 or not finite (or so far apart that their ratio overflows) have no place on log axes.
  if (!chartable(winner.tflops) || !chartable(winner.gbps) ||
      !chartable(intensity_of(*winner.tflops, *winner.gbps))) {
    return no_roofline(fmt::format("No roofline: the winner's recorded {} TFLOP/s and {} GB/s cannot be drawn on "
                                   "logarithmic axes.",
                                   *winner.tflops, *winner.gbps));
  }
  std::vector<Marker> markers{{fmt::format("winner {} TFLOP/s", tflops_text(*winner.tflops)), "winner-dot",
                               intensity_of(*winner.tflops, *winner.gbps), *winner.tflops}};
  if (facts.reference && chartable(facts.reference->tflops) && chartable(facts.reference->gbps) &&
      chartable(intensity_of(*facts.reference->tflops, *facts.reference->gbps))) {
    markers.push_back({fmt::format("{} {} TFLOP/s", reference_label(*facts.reference), tflops_text(*facts.reference->tflops)),
                       "baseline-dot", intensity_of(*facts.reference->tflops, *facts.reference->gbps),
                       *facts.reference->tflops});
  }
  // Plain numbers, 0 where unknown: the compute peak (TFLOP/s), the bandwidth (GB/s) and their ridge.
  const double compute_roof = facts.peak_gemm ? *facts.peak_gemm->tflops : 0;
  const bool bandwidth_measured = facts.peak_copy != nullptr;
  const double bandwidth = bandwidth_measured ? *facts.peak_copy->gbps : facts.theoretical_gbps.value_or(0);
  const double ridge = compute_roof > 0 && bandwidth > 0 ? compute_roof * 1e12 / (bandwidth * 1e9) : 0;

  double x_min = std::numeric_limits<double>::infinity(), x_max = 0, y_min = x_min, y_max = 0;
  for (const Marker& m : markers) {
    x_min = std::min(x_min, m.intensity);
    x_max = std::max(x_max, m.intensity);
    y_min = std::min(y_min, m.tflops);
    y_max = std::max(y_max, m.tflops);
  }
  if (ridge > 0) {
    x_min = std::min(x_min, ridge);
    x_max = std::max(x_max, ridge);
  }
  // Show the bandwidth roof from the height of the lowest point, so its slope is visible.
  if (bandwidth > 0) x_min = std::min(x_min, y_min * 1e3 / bandwidth);
  if (compute_roof > 0) y_max = std::max(y_max, compute_roof);
  auto decade_below = [](double v) { return std::pow(10.0, std::floor(std::log10(v))); };
  auto decade_above = [](double v) { return std::pow(10.0, std::ceil(std::log10(v))); };
  const double x_lo = decade_below(x_min / 5), x_hi = decade_above(x_max * 5);
  const double y_lo = decade_below(y_min / 5), y_hi = decade_above(y_max * 1.3);

  const Area area{76, 20, 984, 370};
  Svg svg(1000, 420, "Roofline: TFLOP/s against arithmetic intensity, with the winner", "chart-roofline");
  const Scale x{x_lo, x_hi, area.left, area.right, true};
  const Scale y{y_lo, y_hi, area.bottom, area.top, true};

  // The roof: bandwidth x intensity up to the compute peak, whichever of the two is known.
  std::vector<Point> roof;
  bool roof_has_slope = false;
  if (bandwidth > 0) {
    const double start = std::max(x_lo, y_lo * 1e3 / bandwidth);
    const double end = std::min(ridge > 0 ? ridge : x_hi, y_hi * 1e3 / bandwidth);
    if (start < end) {
      roof.push_back({x(start), y(start * bandwidth / 1e3)});
      roof.push_back({x(end), y(end * bandwidth / 1e3)});
      roof_has_slope = true;
    }
  }
  if (compute_roof > 0) {
    if (roof.empty()) roof.push_back({area.left, y(compute_roof)});
    roof.push_back({area.right, y(compute_roof)});
  }
  // Shade what is attainable only when the roof is complete; a lone bandwidth line bounds nothing.
  if (compute_roof > 0) {
    std::vector<Point> under = roof;
    under.push_back({roof.back().x, area.bottom});
    under.push_back({roof.front().x, area.bottom});
    svg.polygon(under, R"(class="roof-area")");
  }
  // Axes over the shading, the roof over the axes.
  draw_y_axis(svg, area, y, log_ticks(y_lo, y_hi), "throughput (TFLOP/s, log scale)", 18);
  draw_x_axis(svg, area, x, log_ticks(x_lo, x_hi), "arithmetic intensity (FLOP/byte, log scale)");
  if (!roof.empty()) {
    svg.polyline(roof, fmt::format(R"(stroke="{}" stroke-width="2.6"{})", colour::kRoof,
                                   bandwidth_measured || bandwidth == 0 ? "" : R"( stroke-dasharray="9 5")"));
  }
  if (roof_has_slope) {
    const Point a = roof[0], b = roof[1];
    const double angle = std::atan2(b.y - a.y, b.x - a.x) * 180 / std::numbers::pi;
    const Point at{a.x + (b.x - a.x) * 0.45, a.y + (b.y - a.y) * 0.45 - 8};
    svg.text(
        at.x, at.y,
        bandwidth_measured
            ? fmt::format("measured copy bandwidth {} GB/s", gbps_text(bandwidth))
            : fmt::format("theoretical DRAM bandwidth {} GB/s (not measured)", gbps_text(bandwidth)),
        fmt::format(R"x(class="roof-label" text-anchor="middle" transform="rotate({:.1f} {:.1f} {:.1f})")x",
                    angle, at.x, at.y));
  }
  if (compute_roof > 0) {
    svg.text(area.right - 6, y(compute_roof) - 8,
             fmt::format("measured GEMM peak {} TFLOP/s", tflops_text(compute_roof)),
             R"(class="roof-label" text-anchor="end")");
  }
  if (ridge > 0) {
    const double ridge_x = x(ridge);
    svg.line(ridge_x, y(compute_roof), ridge_x, area.bottom, R"(class="ridge")");
    svg.text(ridge_x + 5, area.bottom - 6, fmt::format("ridge {} FLOP/B", intensity_text(ridge)),
             R"(class="panel-note")");
  }

  // Labels to the right of the points where the widest fits, else to the left; nudged apart when two
  // points sit close together.
  double widest_label = 0;
  for (const Marker& m : markers) widest_label = std::max(widest_label, text_width(m.label, kCalloutPx));
  std::vector<double> label_y;
  for (const Marker& m : markers) label_y.push_back(y(m.tflops) + 4);
  if (label_y.size() == 2 && std::abs(label_y[0] - label_y[1]) < 16) {
    const double middle = (label_y[0] + label_y[1]) / 2;
    const double direction = label_y[0] <= label_y[1] ? -1 : 1;
    label_y[0] = middle + direction * 8;
    label_y[1] = middle - direction * 8;
  }
  for (std::size_t i = markers.size(); i-- > 0;) {
    const Marker& m = markers[i];
    const double px = x(m.intensity);
    svg.circle(px, y(m.tflops), i == 0 ? 6.5 : 5.5, fmt::format(R"(class="{}")", m.css_class));
    const bool fits_right = px + 11 + widest_label <= area.right;
    svg.text(fits_right ? px + 11 : px - 11, label_y[i], m.label,
             fmt::format(R"(class="callout" text-anchor="{}")", fits_right ? "start" : "end"));
  }
  html += svg.finish();

  html += R"(<p class="caption">)";
  html += fmt::format(
      "Winner: {} TFLOP/s at {} FLOP/byte (its recorded TFLOP/s over its recorded GB/s, {} GB/s). ",
      tflops_text(*winner.tflops), intensity_text(markers[0].intensity), gbps_text(*winner.gbps));
  if (markers.size() > 1) {
    html += fmt::format("{}, measured in the same run: {} TFLOP/s at {} FLOP/byte. ",
                        escape(reference_label(*facts.reference)), tflops_text(markers[1].tflops),
                        intensity_text(markers[1].intensity));
  }
  if (compute_roof > 0 && bandwidth_measured) {
    html += fmt::format(
        "Both roofs were measured in this run on this device: the compute roof is a large GEMM "
        "({} TFLOP/s{}), the bandwidth roof a device copy ({} GB/s{}). The winner reaches {:.0f}% of the "
        "roof at its intensity.",
        tflops_text(compute_roof),
        baseline_what(*facts.peak_gemm).empty() ? "" : ": " + escape(baseline_what(*facts.peak_gemm)),
        gbps_text(bandwidth),
        baseline_what(*facts.peak_copy).empty() ? "" : ": " + escape(baseline_what(*facts.peak_copy)),
        100 * *winner.tflops / std::min(compute_roof, markers[0].intensity * bandwidth / 1e3));
  } else {
    if (compute_roof > 0) {
      html += fmt::format("The compute roof, {} TFLOP/s, was measured in this run (a large GEMM); ",
                          tflops_text(compute_roof));
    } else {
      html += fmt::format("No compute peak was measured in this run{}, so no compute roof is drawn; ",
                          input.schema_version < 2
                              ? " (its database, schema version " + std::to_string(input.schema_version) +
                                    ", predates measured peaks)"
                              : "");
    }
    if (bandwidth_measured) {
      html += fmt::format("the bandwidth roof, {} GB/s, was measured (a device copy).", gbps_text(bandwidth));
    } else if (bandwidth > 0) {
      html += fmt::format(
          "no copy bandwidth was measured either, so the dashed line is the device's theoretical DRAM "
          "bandwidth, {} GB/s, computed from the memory clock and bus width in the recorded device "
          "properties: a data-sheet figure, not a measurement.",
          gbps_text(bandwidth));
    } else {
      html += "no bandwidth was measured and the device properties give none, so no bandwidth roof is drawn.";
    }
  }
  return html + "</p></section>";
}

// ---- 4. tables ----

// The config as name=value parts; parts equal to the winner's are dimmed, so each row shows what differs.
std::string config_cell(const std::string& config,
                        const std::vector<std::pair<std::string, std::string>>& winner, bool is_winner) {
  const auto parts = parse_config(config);
  if (parts.empty()) return fmt::format(R"(<td class="config">{}</td>)", escape(config));
  std::string cell = R"(<td class="config">)";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const bool same = !is_winner && std::find(winner.begin(), winner.end(), parts[i]) != winner.end();
    cell += fmt::format(R"({}<span class="{}">{}=<b>{}</b></span>)", i == 0 ? "" : " ",
                        same ? "same" : "part", escape(parts[i].first), escape(parts[i].second));
  }
  return cell + "</td>";
}

// What the baseline is, the verdict of its correctness check when it had one, and when it was measured
// (escaped HTML).
std::string baseline_description(const BaselineRecord& b) {
  std::string html = escape(baseline_what(b));
  const std::string check = baseline_detail(b, "check"), reason = baseline_detail(b, "reason");
  std::string note;
  if (!check.empty()) {
    note = fmt::format(R"(<span class="{}">check {}{}</span> · )",
                       check == "pass" ? "check-passed" : "check-failed", escape(check),
                       reason.empty() ? "" : ": " + escape(reason));
  }
  note += "measured " + escape(b.created_at);
  return html + (html.empty() ? "" : "<br>") + R"(<span class="muted small">)" + note + "</span>";
}

std::string range_text(const std::optional<double>& p10, const std::optional<double>& p90) {
  return p10 && p90 ? us_text(*p10) + "–" + us_text(*p90) : "—";
}

std::string top_section(const ReportInput& input, const Facts& facts) {
  std::string html = fmt::format(R"(<section id="top"><h2>Top {} trials</h2>)", input.top.size());
  if (input.top.empty()) {
    html += R"(<p class="caption">No valid trial in this run.</p>)";
  } else {
    const auto winner_config = parse_config(facts.winner ? facts.winner->config : std::string());
    html +=
        R"(<div class="scroll"><table id="top-table"><thead><tr><th class="num">rank</th><th class="num">trial</th>)"
        R"(<th class="num">gen</th><th class="num">median µs</th><th class="num">p10–p90 µs</th>)"
        R"(<th class="num">TFLOP/s</th><th class="num">GB/s</th><th>config (dimmed: same as the winner)</th></tr></thead><tbody>)";
    for (std::size_t i = 0; i < input.top.size(); ++i) {
      const TrialRecord& t = input.top[i];
      html += fmt::format(
          R"(<tr{}><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td>)"
          R"(<td class="num">{}</td><td class="num">{}</td><td class="num">{}</td>{}</tr>)",
          i == 0 ? R"( class="winner")" : "", i + 1, t.seq, t.generation, or_dash(t.median_us, us_text),
          range_text(t.p10_us, t.p90_us), or_dash(t.tflops, tflops_text), or_dash(t.gbps, gbps_text),
          config_cell(t.config, winner_config, i == 0));
    }
    html += "</tbody></table></div>";
  }

  html += "<h3>Baselines measured in this run</h3>";
  if (input.baselines.empty()) {
    html += fmt::format(R"(<p class="caption">None recorded{}.</p>)",
                        input.schema_version < 2
                            ? fmt::format(" (the database has schema version {}; baselines came "
                                          "with version 2)",
                                          input.schema_version)
                            : "");
    return html + "</section>";
  }
  html +=
      R"(<div class="scroll"><table id="baseline-table"><thead><tr><th>baseline</th><th class="num">median µs</th>)"
      R"(<th class="num">p10–p90 µs</th><th class="num">TFLOP/s</th><th class="num">GB/s</th>)"
      R"(<th class="num">max abs error</th><th class="num">winner speedup</th><th>what</th></tr></thead><tbody>)";
  for (const BaselineRecord& b : input.baselines) {
    std::string speedup = "—";
    if (b.median_us && *b.median_us > 0 && facts.winner) {
      speedup = fmt::format(R"(<span class="speedup">{}</span>)",
                            ratio_text(*b.median_us / *facts.winner->median_us));
    }
    html += fmt::format(
        R"(<tr><td><code>{}</code></td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td>)"
        R"(<td class="num">{}</td><td class="num">{}</td><td class="num">{}</td><td>{}</td></tr>)",
        escape(b.name), or_dash(b.median_us, us_text), range_text(b.p10_us, b.p90_us),
        or_dash(b.tflops, tflops_text), or_dash(b.gbps, gbps_text),
        b.max_abs_error ? fmt::format("{:.3g}", *b.max_abs_error) : std::string("—"), speedup,
        baseline_description(b));
  }
  html += "</tbody></table></div>";
  html +=
      R"(<p class="caption">Winner speedup: the baseline's median time over the winner's, for the baselines that )"
      R"(were timed; the peaks are not timings of the problem.</p>)";
  return html + "</section>";
}

// Counts of every trial status, with the first error message of each failing status as an example.
std::string status_section(const ReportInput& input) {
  std::vector<TrialStatus> order;
  std::map<TrialStatus, std::pair<int, const TrialRecord*>> by_status;
  for (const TrialRecord& t : input.trials) {
    auto [entry, added] = by_status.try_emplace(t.status, 0, &t);
    if (added) order.push_back(t.status);
    ++entry->second.first;
  }
  std::string html = R"(<section id="statuses"><h2>Trials by outcome</h2>)";
  if (order.empty()) return html + R"(<p class="caption">No trial recorded.</p></section>)";
  std::stable_sort(order.begin(), order.end(), [&](TrialStatus a, TrialStatus b) {
    return by_status[a].first > by_status[b].first;
  });
  html +=
      R"(<div class="scroll"><table id="status-table"><thead><tr><th>status</th><th class="num">trials</th>)"
      R"(<th class="num">share</th><th>first example</th></tr></thead><tbody>)";
  for (TrialStatus status : order) {
    const auto& [count, first] = by_status[status];
    const std::string example = first->error.empty()
                                    ? std::string("—")
                                    : fmt::format("trial {}: {}", first->seq, first->error.substr(0, 300));
    html += fmt::format(
        R"(<tr><td><code>{}</code></td><td class="num">{}</td><td class="num">{:.1f}%</td><td>{}</td></tr>)",
        escape(core::status_name(status)), count, 100.0 * count / static_cast<double>(input.trials.size()),
        escape(example));
  }
  return html + "</tbody></table></div></section>";
}

// ---- header and page ----

std::string device_summary(const Facts& facts) {
  if (!facts.device.is_object()) return {};
  std::vector<std::string> parts;
  auto field = [&](const char* key) -> std::optional<std::string> {
    if (!facts.device.contains(key)) return std::nullopt;
    const nlohmann::json& v = facts.device[key];
    return v.is_string() ? v.get<std::string>() : json_text(v);
  };
  if (auto cc = field("compute_capability")) parts.push_back("compute capability " + *cc);
  if (auto sms = field("sm_count")) parts.push_back(*sms + " SMs");
  if (auto target = field("native_target")) parts.push_back(*target);
  if (facts.theoretical_gbps)
    parts.push_back(fmt::format("{} GB/s theoretical", gbps_text(*facts.theoretical_gbps)));
  if (auto driver = field("driver_cuda_version")) parts.push_back("driver CUDA " + *driver);
  std::string text;
  for (const std::string& p : parts) text += (text.empty() ? "" : ", ") + p;
  return text;
}

std::string header_section(const ReportInput& input, const Facts& facts) {
  const RunRow& run = input.run;
  std::string html = fmt::format(
      R"(<header class="card"><h1>{} <span class="muted">· {}</span></h1><p class="subtitle"><code>{}</code> on {}</p>)",
      escape(fmt::format("Run {}", run.id)), escape(fmt::format("{} search, {}", run.strategy, run.family)),
      escape(run.problem), escape(run.device.empty() ? "no device" : run.device));

  const std::string wall =
      input.finished_at ? wall_time_text(run.created_at, *input.finished_at) : std::string();
  html += R"(<div class="kpis">)";
  auto kpi = [&](const std::string& value, const std::string& label) {
    html += fmt::format(R"(<div class="kpi"><div class="value">{}</div><div class="label">{}</div></div>)",
                        value, label);
  };
  if (facts.winner) {
    kpi(us_text(*facts.winner->median_us) + " µs",
        escape(fmt::format("best median (trial {})", facts.winner->seq)));
    if (facts.winner->tflops) {
      kpi(tflops_text(*facts.winner->tflops) + " TFLOP/s",
          facts.winner->gbps ? gbps_text(*facts.winner->gbps) + " GB/s" : std::string("winner's throughput"));
    }
    // The headline speedup is against the strongest library kernel the user already has; the unfused
    // cuBLAS pipeline is a lower bar, shown after it (or alone, with the reason there is no library one).
    if (facts.library) {
      kpi(ratio_text(*facts.library->median_us / *facts.winner->median_us),
          escape(fmt::format("vs {} ({} µs), the strongest library kernel timed in this run", facts.library->name,
                             us_text(*facts.library->median_us))));
    } else {
      kpi("—", "no library kernel was timed in this run");
    }
    if (facts.reference && facts.reference->median_us && *facts.reference->median_us > 0) {
      kpi(ratio_text(*facts.reference->median_us / *facts.winner->median_us),
          escape(fmt::format("faster than {} ({} µs)", reference_label(*facts.reference),
                             us_text(*facts.reference->median_us))));
    }
  } else {
    kpi("—", "no valid trial");
  }
  kpi(fmt::format("{} / {}", facts.valid.size(), input.trials.size()), "valid / recorded trials");
  if (!wall.empty()) kpi(wall, "wall time");
  html += "</div>";

  html += R"(<dl class="meta">)";
  auto item = [&](const char* term, const std::string& escaped_value) {
    html += fmt::format("<dt>{}</dt><dd>{}</dd>", term, escaped_value);
  };
  item("run", escape(std::to_string(run.id)));
  item("status", escape(run.status));
  item("family", escape(run.family));
  item("strategy", escape(run.strategy));
  item("problem", "<code>" + escape(run.problem) + "</code>");
  item("seed", escape(std::to_string(run.seed)));
  const std::string device_details = device_summary(facts);
  item("device", escape(run.device) + (device_details.empty() ? ""
                                                              : R"(<br><span class="muted">)" +
                                                                    escape(device_details) + "</span>"));
  item("budget", escape(std::to_string(run.budget)));
  item("trials", escape(fmt::format("{} recorded, {} valid", input.trials.size(), facts.valid.size())));
  item("created", escape(run.created_at));
  item("finished", input.finished_at ? escape(*input.finished_at) : std::string("—"));
  item("wall time", wall.empty() ? std::string("—") : wall);
  item("versions", escape(input.info.versions));
  item("options", "<code>" + escape(input.info.options_json) + "</code>");
  html += "</dl>";

  if (facts.winner) {
    const TrialRecord& w = *facts.winner;
    html +=
        fmt::format(R"(<div class="winner-box"><div><b>Winner</b>: trial {}, generation {}: {} µs median )"
                    R"((p10–p90 {} µs){}{}</div><div class="chips">)",
                    w.seq, w.generation, us_text(*w.median_us), range_text(w.p10_us, w.p90_us),
                    w.tflops ? ", " + tflops_text(*w.tflops) + " TFLOP/s" : std::string(),
                    w.gbps ? ", " + gbps_text(*w.gbps) + " GB/s" : std::string());
    const auto parts = parse_config(w.config);
    if (parts.empty()) html += fmt::format(R"(<code>{}</code>)", escape(w.config));
    for (const auto& [name, label] : parts) {
      html += fmt::format(R"(<span class="chip">{}=<b>{}</b></span>)", escape(name), escape(label));
    }
    html += "</div></div>";
  }
  return html + "</header>";
}

constexpr const char* kStyle = R"css(
:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;background:#f4f5f7;color:#1f2933;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","DejaVu Sans",Arial,sans-serif}
main{max-width:1180px;margin:0 auto;padding:24px 20px 32px}
.card,section{background:#fff;border:1px solid #e1e4e8;border-radius:10px;padding:20px 24px;margin:0 0 18px}
h1{font-size:24px;margin:0;font-weight:650;letter-spacing:-.01em}
h2{font-size:18px;margin:0 0 10px;font-weight:650}
h3{font-size:15px;margin:20px 0 8px;font-weight:650}
code,.config,.chip{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:12.5px}
.muted{color:#616e7c}
.subtitle{margin:4px 0 14px;color:#3e4c59}
.kpis{display:grid;grid-template-columns:repeat(auto-fit,minmax(190px,1fr));gap:12px;margin:0 0 16px}
.kpi{border:1px solid #e1e4e8;border-radius:8px;padding:10px 14px}
.kpi .value{font-size:22px;font-weight:650;font-variant-numeric:tabular-nums}
.kpi .label{color:#616e7c;font-size:13px}
dl.meta{display:grid;grid-template-columns:max-content minmax(0,1fr) max-content minmax(0,1fr);gap:3px 18px;margin:0 0 14px;font-size:14px}
dl.meta dt{color:#616e7c}
dl.meta dd{margin:0;overflow-wrap:anywhere}
.winner-box{border-left:4px solid var(--winner);background:#fffaf5;padding:10px 14px;border-radius:4px;font-size:14px}
.chips{margin-top:6px;display:flex;flex-wrap:wrap;gap:6px}
.chip{background:#fff;border:1px solid #f0d9c6;border-radius:4px;padding:1px 6px}
svg{width:100%;height:auto;display:block}
svg text{font-size:12px;fill:#52606d}
svg .axis-label{font-size:13px;fill:#3e4c59}
svg .legend{font-size:12.5px;fill:#1f2933}
svg .callout{font-size:12.5px;fill:#1f2933;font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:3px}
svg .panel-title{font-size:14px;font-weight:650;fill:#1f2933;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace}
svg .panel-note{font-size:11px;fill:#7b8794}
svg .category{font-size:11.5px;fill:#3e4c59}
svg .roof-label{font-size:12.5px;fill:#0f5c56;font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:3px}
.grid{stroke:#eceff2;stroke-width:1}
.axis{stroke:#9aa5b1;stroke-width:1}
.trial-dot{fill:var(--run);fill-opacity:.28}
.winner-dot{fill:var(--winner);stroke:#fff;stroke-width:1.5}
.baseline-dot{fill:var(--baseline);stroke:#fff;stroke-width:1.5}
.best-tick{stroke:#1f2933;stroke-width:2}
.roof-area{fill:#f1f8f7}
.ridge{stroke:#9aa5b1;stroke-dasharray:3 4}
.panels{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:6px 18px}
.caption{color:#52606d;font-size:13.5px;margin:10px 0 0;max-width:100ch}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:13.5px;font-variant-numeric:tabular-nums}
th{text-align:left;color:#52606d;font-weight:600;border-bottom:2px solid #e1e4e8;padding:6px 8px;white-space:nowrap}
td{border-bottom:1px solid #eef0f2;padding:5px 8px;vertical-align:top}
.num{text-align:right;white-space:nowrap}
tr.winner td{background:#fff7ed}
td.config{font-size:12px;line-height:1.6}
td.config .same{color:#a3acb6}
td.config .same b{font-weight:400}
.speedup{font-weight:650}
.small{font-size:12px}
.check-failed{color:#b91c1c;font-weight:600}
footer{color:#616e7c;font-size:13px;padding:0 4px}
footer code{background:#e9ecef;padding:2px 6px;border-radius:4px;color:#1f2933}
@media (max-width:760px){dl.meta{grid-template-columns:max-content minmax(0,1fr)}.card,section{padding:14px}}
)css";

}  // namespace

std::string render_report_html(const ReportInput& input) {
  const Facts facts = facts_of(input);
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  html += fmt::format(
      "<title>{}</title><style>:root{{--run:{};--winner:{};--baseline:{}}}{}</style></head><body><main>",
      escape(fmt::format("evotune report: run {}, {}", input.run.id, input.run.problem)), colour::kRun,
      colour::kWinner, colour::kBaseline, kStyle);
  html += header_section(input, facts);
  html += convergence_section(input, facts);
  html += tunables_section(facts);
  html += roofline_section(input, facts);
  html += top_section(input, facts);
  html += status_section(input);
  const std::string command =
      fmt::format("evotune report --db {} --run {} -o {}", shell_quoted(input.db_path), input.run.id,
                  shell_quoted(input.output_path));
  html += fmt::format(
      R"(<footer><p>Regenerate: <code id="regenerate">{}</code></p><p>Generated {} by evotune report from the evidence )"
      R"(database (schema version {}). Every figure on this page is a recorded value or computed from recorded values.</p></footer>)",
      escape(command), escape(input.generated_at), input.schema_version);
  return html + "</main></body></html>\n";
}

}  // namespace evotune::evidence
