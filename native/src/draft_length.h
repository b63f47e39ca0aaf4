// The speculative decoder's choice of how many tokens to draft a pass: pure arithmetic over
// what the passes so far measured, with no llama.cpp inside, so that a test addon of its own
// can drive it (native/test-seams) while the production addon exports nothing for tests.
#pragma once
#include <cstddef>
#include <vector>

namespace rf {

struct SpecPass {
  int drafted = 0;
  int accepted = 0;
  double draft_ms = 0;
  double verify_ms = 0;
};

// Chooses k for the next pass from what the passes so far measured: the draft's per-token
// acceptance (decayed counts), the time per drafted token, and the verify pass's time for each
// batch size it has run (a pass of k+1 tokens costs more compute than one of 1, even when it
// reads the same bytes). The k that maximises expected tokens per second,
// (1 - a^(k+1)) / (1 - a) / (T_verify(k+1) + k * t_draft); sizes not yet run are estimated
// from those that were, optimistically, so that they get tried. While k is 0 nothing is drafted
// and acceptance is not measured, so every kProbeEvery passes one token is drafted to look again.
class DraftLength {
 public:
  DraftLength(int min, int max);
  int next();
  void observe(const SpecPass& p);

  static constexpr int kProbeEvery = 16;

 private:
  // The median verify time of each batch size (index n), -1 for sizes not run yet.
  std::vector<double> Medians() const;
  static double VerifyMs(const std::vector<double>& t_verify, int n);
  int min_, max_, k_;
  int idle_ = 0;  // passes in a row with k 0
  double accepted_ = 1, rejected_ = 1;  // a weak prior: acceptance 1/2
  double t_draft_ = -1;
  // The verify pass's last kSamples times by batch size (index n): their median, not a mean,
  // so that one pass slowed by something else does not swing k.
  static constexpr size_t kSamples = 8;
  std::vector<std::vector<double>> samples_;
};

}  // namespace rf
