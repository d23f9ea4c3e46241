#include "tools/cli/getopt_style.hh"

#include <cctype>

#include "tools/cli/suggest.hh"

namespace xttcp {

namespace {

std::vector<std::string> long_spellings(std::span<const OptionDef> table) {
  std::vector<std::string> names;
  for (const OptionDef& def : table)
    if (!def.long_name.empty()) names.push_back("--" + std::string(def.long_name));
  return names;
}

std::string did_you_mean(const std::optional<std::string>& suggestion) {
  return suggestion ? " (did you mean '" + *suggestion + "'?)" : "";
}

const OptionDef* find_short(std::span<const OptionDef> table, char name) {
  for (const OptionDef& def : table)
    if (def.short_name == name) return &def;
  return nullptr;
}

// Exact long name, else the one option whose name starts with `name` (getopt_long's rule).
Expected<const OptionDef*> find_long(std::span<const OptionDef> table, std::string_view name) {
  std::vector<const OptionDef*> prefixed;
  for (const OptionDef& def : table) {
    if (def.long_name.empty()) continue;
    if (def.long_name == name) return &def;
    if (!name.empty() && def.long_name.starts_with(name)) prefixed.push_back(&def);
  }
  const std::string typed = "--" + std::string(name);
  if (prefixed.size() == 1) return prefixed.front();
  if (prefixed.size() > 1) {
    std::string choices;
    for (const OptionDef* def : prefixed)
      choices += (choices.empty() ? "" : ", ") + display_name(*def, true);
    return fail("option '" + typed + "' is ambiguous (" + choices + ")");
  }
  return fail("unknown option '" + typed + "'" +
              did_you_mean(closest_match(typed, long_spellings(table))));
}

// A word that is meant as a value for a required option; an option-looking word is not. A word
// with a space is a value (--dpdk-args "--no-huge -m 512").
bool looks_like_value(const std::string& word) {
  if (word.size() < 2 || word[0] != '-' || word.find(' ') != std::string::npos) return true;
  return std::isdigit(static_cast<unsigned char>(word[1])) || word[1] == '.';
}

std::string value_missing(const OptionDef& def, bool spelled_long) {
  return display_name(def, spelled_long) + " needs a value (" + std::string(def.value_name) + ")";
}

bool is_long_name(std::span<const OptionDef> table, std::string_view name) {
  for (const OptionDef& def : table)
    if (!def.long_name.empty() && def.long_name == name) return true;
  return false;
}

class Splitter {
 public:
  Splitter(const std::vector<std::string>& args, std::span<const OptionDef> table,
           const OptionHint& hint)
      : args_(args), table_(table), hint_(hint) {}

  Expected<GetoptLine> run() {
    while (next_ < args_.size()) {
      const std::string& word = args_[next_++];
      Status status = ok();
      if (word == "--") {
        rest_are_stray();
      } else if (auto dash = typographic(word)) {
        status = fail(*dash);
      } else if (word.size() > 2 && word.starts_with("--")) {
        status = long_option(word.substr(2));
      } else if (word.size() >= 2 && word[0] == '-') {
        status = short_options(word);
      } else {
        stray(word);
      }
      if (!status) return status.error();
    }
    return GetoptLine{std::move(uses_), std::move(strays_)};
  }

 private:
  std::optional<std::string> typographic(std::string_view word) const {
    return typographic_dash_error(
        word, [this](std::string_view name) { return is_long_name(table_, name); });
  }

  // The next word as an optional value: present, non-empty and not starting with '-' (nor with
  // a typographic dash: "-s –u" is a mistyped option, not an address).
  std::optional<std::string> take_optional_word() {
    if (next_ < args_.size() && !args_[next_].empty() && args_[next_][0] != '-' &&
        !typographic(args_[next_]))
      return args_[next_++];
    return std::nullopt;
  }

  // The next word as a required value, or the refusal.
  Status take_required_word(OptionUse& use) {
    if (next_ < args_.size())
      if (auto dash = typographic(args_[next_])) return fail(*dash);
    if (next_ >= args_.size() || !looks_like_value(args_[next_]))
      return fail(value_missing(*use.def, use.spelled_long));
    use.value = args_[next_++];
    return ok();
  }

  // Records an option; one that ended with a value is what a stray word may follow.
  void record(OptionUse use) {
    const bool has_value = use.value.has_value();
    uses_.push_back(std::move(use));
    value_owner_ = has_value ? std::optional<std::size_t>(uses_.size() - 1) : std::nullopt;
  }

  // The hint for an option typed as `typed`, given the word after it.
  std::optional<std::string> hint_for(std::string_view typed) const {
    if (!hint_) return std::nullopt;
    return hint_(typed, next_ < args_.size() ? std::string_view(args_[next_]) : "");
  }

  Status long_option(const std::string& body) {
    const std::size_t equals = body.find('=');
    const std::string name = body.substr(0, equals);
    auto found = find_long(table_, name);
    if (!found) {
      const std::string typed = "--" + name;
      if (!is_long_name(table_, name) && found.error().message.starts_with("unknown option"))
        if (auto hint = hint_for(typed))
          return fail("unknown option '" + typed + "' (" + *hint + ")");
      return found.error();
    }
    const OptionDef& def = **found;
    OptionUse use{&def, true, std::nullopt};
    if (equals != std::string::npos) use.value = body.substr(equals + 1);

    switch (def.value) {
      case ValueKind::none:
        if (use.value) return fail(display_name(def, true) + " takes no value");
        break;
      case ValueKind::required:
        if (!use.value)
          if (Status taken = take_required_word(use); !taken) return taken;
        break;
      case ValueKind::optional:
        if (!use.value) use.value = take_optional_word();
        break;
    }
    record(std::move(use));
    return ok();
  }

  Status short_options(const std::string& word) {
    // "-no-delay", "-backend": a long option typed with one dash. getopt would read it as a
    // bundle (-n with value "o-delay"); say what was probably meant instead.
    // Attached values of -r/-s/-f/-O/-x/-j are addresses and file names such as
    // "-xrun-1.xml", so after those letters only an exact long name counts.
    const std::string body = word.substr(1);
    if (body.size() >= 2)
      if (auto hint = hint_for(word)) return fail("unknown option '" + word + "' (" + *hint + ")");
    if (body.size() >= 4) {
      const OptionDef* first = find_short(table_, body[0]);
      const bool takes_word = first != nullptr && first->value == ValueKind::optional;
      auto suggestion = closest_match("--" + body, long_spellings(table_));
      if (suggestion) {
        const std::size_t distance = edit_distance("--" + body, *suggestion);
        if (distance == 0 || (!takes_word && distance <= 2 && body.find('-') != std::string::npos))
          return fail("unknown option '" + word + "'" + did_you_mean(suggestion));
      }
    }

    for (std::size_t at = 1; at < word.size(); ++at) {
      const OptionDef* def = find_short(table_, word[at]);
      if (def == nullptr) return unknown_short(word, at);
      OptionUse use{def, false, std::nullopt};
      const std::string attached = word.substr(at + 1);
      if (def->value == ValueKind::none) {
        record(std::move(use));
        continue;
      }
      if (!attached.empty()) {
        use.value = attached;
      } else if (def->value == ValueKind::optional) {
        use.value = take_optional_word();
      } else if (Status taken = take_required_word(use); !taken) {
        return taken;
      }
      record(std::move(use));
      return ok();  // the value took the rest of the word
    }
    return ok();
  }

  Status unknown_short(const std::string& word, std::size_t at) {
    const char typed = word[at];
    std::string message = std::string("unknown option '-") + typed + "'";
    if (word.size() > 2) message += " in '" + word + "'";
    if (auto hint = hint_for(std::string("-") + typed)) return fail(message + " (" + *hint + ")");
    // -v for -V, -q for -Q: the same letter in the other case is the likely intent.
    for (char other : {static_cast<char>(std::toupper(static_cast<unsigned char>(typed))),
                       static_cast<char>(std::tolower(static_cast<unsigned char>(typed)))}) {
      if (other != typed && find_short(table_, other) != nullptr)
        return fail(message + did_you_mean(std::string("-") + other));
    }
    return fail(message);
  }

  // getopt_long moves such a word behind the options and NTTTCP-for-Linux never reads it.
  void stray(const std::string& word) {
    StrayWord stray{word, std::nullopt, std::nullopt};
    if (value_owner_) stray.after_value_of = uses_[*value_owner_];
    if (!word.empty()) stray.did_you_mean = closest_match("--" + word, long_spellings(table_));
    strays_.push_back(std::move(stray));
  }

  // After "--" every word is a non-option, even "-t".
  void rest_are_stray() {
    value_owner_.reset();
    while (next_ < args_.size()) stray(args_[next_++]);
  }

  const std::vector<std::string>& args_;
  std::span<const OptionDef> table_;
  const OptionHint& hint_;
  std::size_t next_ = 0;
  std::vector<OptionUse> uses_;
  std::vector<StrayWord> strays_;
  std::optional<std::size_t> value_owner_;  // index in uses_ of the option a stray may follow
};

}  // namespace

Expected<GetoptLine> split_getopt_style(const std::vector<std::string>& args,
                                        std::span<const OptionDef> table, const OptionHint& hint) {
  return Splitter(args, table, hint).run();
}

std::string stray_words_note(const std::vector<StrayWord>& strays) {
  if (strays.empty()) return "";
  std::string words;
  for (const StrayWord& stray : strays) {
    words += (words.empty() ? "'" : ", '") + stray.word + "'";
    if (stray.did_you_mean) words += " (did you mean '" + *stray.did_you_mean + "'?)";
  }
  std::string note =
      "ignoring " + words + ": not options or option values, as NTTTCP-for-Linux ignores them";
  const StrayWord& first = strays.front();
  if (first.after_value_of && first.after_value_of->value)
    note.append(" (")
        .append(display_name(*first.after_value_of))
        .append(" took only '")
        .append(*first.after_value_of->value)
        .append("'; quote a value that has spaces)");
  return note;
}

}  // namespace xttcp
