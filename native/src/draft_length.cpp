#include "draft_length.h"

#include <algorithm>
#include <cmath>

namespace rf {

DraftLength::DraftLength(int min, int max)
    : min_(min), max_(max), k_(max), samples_(static_cast<size_t>(max) + 2) {}

int DraftLength::next() {
  if (k_ > 0 || max_ == 0) return k_;
  if (++idle_ < kProbeEvery) return 0;
  idle_ = 0;
  return 1;
}

std::vector<double> DraftLength::Medians() const {
  std::vector<double> out(samples_.size(), -1);
  for (size_t n = 0; n < samples_.size(); n++) {
    std::vector<double> v = samples_[n];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    out[n] = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  }
  return out;
}

double DraftLength::VerifyMs(const std::vector<double>& t_verify, int n) {
  // Least squares line through the sizes seen; with one size seen, every size costs the same
  // (the optimistic guess a streamed pass suggests) until another is tried.
  double sn = 0, st = 0, snn = 0, snt = 0, m = 0;
  for (size_t i = 1; i < t_verify.size(); i++) {
    if (t_verify[i] < 0) continue;
    const double x = static_cast<double>(i);
    sn += x, st += t_verify[i], snn += x * x, snt += x * t_verify[i], m++;
  }
  if (m == 0) return -1;
  if (t_verify[static_cast<size_t>(n)] >= 0) return t_verify[static_cast<size_t>(n)];
  if (m == 1) return st;
  const double slope = std::max(0.0, (m * snt - sn * st) / (m * snn - sn * sn));
  return st / m + slope * (n - sn / m);
}

void DraftLength::observe(const SpecPass& p) {
  // Decayed counts: acceptance drifts with the text, so recent passes weigh more.
  if (p.drafted > 0) {
    accepted_ = accepted_ * 0.9 + p.accepted;
    rejected_ = rejected_ * 0.9 + (p.accepted < p.drafted ? 1 : 0);
  }
  auto ema = [](double& v, double x) { v = v < 0 ? x : 0.8 * v + 0.2 * x; };
  if (p.drafted > 0) ema(t_draft_, p.draft_ms / p.drafted);
  const size_t n = static_cast<size_t>(p.drafted) + 1;
  if (n < samples_.size()) {
    auto& v = samples_[n];
    if (v.size() == kSamples) v.erase(v.begin());
    v.push_back(p.verify_ms);
  }
  if (t_draft_ < 0) return;
  const std::vector<double> t_verify = Medians();
  // A pass of more tokens never costs less than one of fewer. The medians of two sizes are
  // taken at different times, though: a size last run while something else held the CPU keeps
  // its slow samples for as long as it is not run again (the 1-token pass, once every pass
  // drafts). Without this floor such a stale median makes drafting look free and locks it in.
  std::vector<double> est(static_cast<size_t>(max_) + 2, 0);
  for (int n = 1; n <= max_ + 1; n++)
    est[static_cast<size_t>(n)] = std::max(VerifyMs(t_verify, n), est[static_cast<size_t>(n) - 1]);
  const double a = std::min(0.999, accepted_ / (accepted_ + rejected_));
  double best = -1;
  for (int k = min_; k <= max_; k++) {
    const double tokens = (1 - std::pow(a, k + 1)) / (1 - a);
    const double rate = tokens / (est[static_cast<size_t>(k) + 1] + k * t_draft_);
    if (rate > best * 1.0001) {
      best = rate;
      k_ = k;
    }
  }
}

}  // namespace rf
