// A server's output for its client's --get-server-output (server_run.cc). Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fmt/format.h>
#include <optional>
#include <string>

#include "engine/iperf3/json_document.hh"
#include "engine/iperf3/results.hh"

namespace xttcp::iperf3 {

// What a client's --get-server-output gets (reference 3.3): this server's console lines of the
// test, or with -J its document so far, within what a results message carries (4 MiB); beyond
// that, what was kept and a line saying how much was not.
class ServerOutput {
 public:
  static constexpr std::size_t max_bytes = 3u << 20;
  void add(const std::string& line) {
    if (!keep_) return;
    if (text_.size() + line.size() + 1 > max_bytes) {
      ++dropped_;
      return;
    }
    text_ += line;
    text_ += '\n';
  }
  void stop() {
    keep_ = false;
    text_.clear();
  }
  void attach(const std::optional<JsonDocument>& json, Results& results) const {
    if (!json) {
      results.server_output_text =
          text_ + (dropped_ ? fmt::format("[xttcp: {} more lines not sent: the output is larger "
                                          "than {} MiB]\n",
                                          dropped_, max_bytes >> 20)
                            : "");
      return;
    }
    std::string document = json->text();
    if (document.size() <= max_bytes)
      results.server_output_json = std::move(document);
    else
      results.server_output_text = fmt::format(
          "[xttcp: the server's -J document ({} bytes) is larger than the {} MiB sent]\n",
          document.size(), max_bytes >> 20);
  }

 private:
  std::string text_;
  bool keep_ = true;  // until the parameters say whether the client wants it
  uint64_t dropped_ = 0;
};

}  // namespace xttcp::iperf3
