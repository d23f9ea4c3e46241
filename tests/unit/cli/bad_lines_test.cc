// Bad command lines: each must be refused with one line (no '\n') that names the offending
// option or word, so the user can fix it without reading the help.
#include <gtest/gtest.h>

#include "tests/unit/cli/cli_test_util.hh"

namespace xttcp {
namespace {

struct BadLine {
  std::vector<std::string> args;
  std::string names;  // must appear in the error line
};

const BadLine bad_lines[] = {
    // counts and sizes
    {{"-P", "abc"}, "-P: 'abc' is not a whole number"},
    {{"-P", "0"}, "-P: the number of ports must be at least 1"},
    {{"-P", "-1"}, "-P: '-1'"},
    {{"-P4x"}, "-P: '4x'"},
    {{"-P"}, "-P needs a value"},
    {{"-P", "-V"}, "-P needs a value"},
    {{"-s", "x", "-n", "0"}, "-n: the number of threads per port must be at least 1"},
    {{"-s", "x", "-n", "two"}, "-n: 'two'"},
    {{"-s", "x", "-l", "0"}, "-l: the number of connections per thread must be at least 1"},
    {{"-b", "0"}, "-b: the buffer size must be at least 1 byte"},
    {{"-b", "12x"}, "-b: '12x' is not a size"},
    {{"-b", "-1"}, "-b: '-1'"},
    {{"-b", "4g"}, "-b: 4g is 4294967296 bytes"},
    {{"-b", "2g"}, "-b: 2g is 2147483648 bytes, above the maximum of 1073741824 (1g"},
    {{"-s", "x", "-B", "fast"}, "-B: 'fast' is not a rate"},
    {{"-s", "x", "-B", "-5"}, "-B: '-5'"},
    {{"-s", "x", "--fq-rate-limit", "1.5x"}, "--fq-rate-limit: '1.5x'"},
    // ports
    {{"-p", "0"}, "-p: port 0 is outside 1..65535"},
    {{"-p", "65536"}, "-p: port 65536 is outside 1..65535"},
    {{"-p", "1"}, "-p: port 1 leaves no sync port"},
    {{"-p", "65530"}, "-p: receiver ports 65530..65545 pass 65535"},
    {{"-s", "x", "-f", "70000"}, "-f: port 70000 is outside 1..65535"},
    {{"-s", "x", "-f", "65500"}, "-f: source ports 65500..65563 pass 65535"},
    {{"-s", "x", "-fabc"}, "-f: 'abc'"},
    // seconds
    {{"-t", "-5"}, "-t: '-5'"},
    {{"-t", "1.5"}, "-t: '1.5' is not a whole number"},
    {{"-W", "x"}, "-W: 'x'"},
    {{"-C", "99999999999"}, "-C: 99999999999 is above the maximum of 31536000"},
    {{"--interval", "0"}, "--interval: seconds must be > 0"},
    {{"--interval", "abc"}, "--interval: 'abc' is not a number of seconds"},
    {{"-s", "x", "--connect-timeout", "0"}, "--connect-timeout: the timeout must be at least 1"},
    {{"-s", "x", "--connect-timeout", "1.5"}, "--connect-timeout: '1.5'"},
    {{"-s", "x", "--repeat", "0"}, "--repeat: the count must be at least 1"},
    {{"-s", "x", "--repeat", "three"}, "--repeat: 'three'"},
    {{"-s", "x", "--repeat", "1001"}, "--repeat: "},
    {{"-s", "x", "--repeat-pause", "-1"}, "--repeat-pause: seconds must be >= 0"},
    {{"-s", "x", "--repeat-pause", "3601"}, "--repeat-pause: the pause must be at most 3600 s"},
    {{"--repeat", "3"}, "--repeat is for the sender only"},
    {{"--wait-timeout", "-1"}, "--wait-timeout: '-1'"},
    {{"--threads", "0"}, "--threads: the number of threads must be 1..1024"},
    {{"--interval", "0.001"}, "--interval: the interval must be at least 0.01 s"},
    {{"-s", "x", "--zerocopy=maybe"}, "--zerocopy: 'maybe' is not one of on, off, auto"},
    {{"-r", "--zerocopy"}, "--zerocopy"},
    {{"-s", "x", "--skip-rx-copy"}, "--skip-rx-copy"},
    {{"-s", "x", "--congestion", "b b r"}, "--congestion: 'b b r' is not an algorithm name"},
    {{"-s", "x", "--congestion", "averyveryverylongname"}, "--congestion: 'averyveryverylongname'"},
    {{"-s", "x", "-u", "--congestion", "bbr"}, "--congestion: TCP only"},
    {{"-r", "--busy-poll", "100001"},
     "--busy-poll: the busy-poll time must be 0..100000 microseconds"},
    {{"-r", "--busy-poll=fast"}, "--busy-poll: 'fast'"},
    {{"-r", "--receive-mark=sometimes"}, "--receive-mark: 'sometimes' is not one of on, off"},
    {{"-s", "x", "--receive-mark"}, "--receive-mark"},
    {{"-r", "--csv", "-x"}, "--csv needs a value (FILE)"},
    {{"-r", "--csv=-x"}, "--csv: '-x' is not a file name"},
    {{"-r", "--json-stream=-x"}, "--json-stream: '-x' is not a file name or -"},
    {{"-r", "--json-stream="}, "--json-stream: the value is empty (expected a file name or -)"},
    {{"--threads", "2000"}, "--threads: 2000 is above the maximum of 1024"},
    // roles
    {{"-r", "-s", "x"}, "-r and -s cannot be used together"},
    {{"-s"}, "-s needs the receiver's address"},
    {{"-s", "-m", "4,*"}, "-s needs the receiver's address"},
    {{"-s", "x", "-M"}, "-M is for the receiver only (drop -M or use -r)"},
    {{"-s", "x", "--wait-timeout", "5"}, "--wait-timeout is for the receiver only"},
    {{"-L"}, "-L is for the sender only (drop -L or use -s ADDR)"},
    {{"-r", "-a", "10.0.0.2"}, "-a is for the sender only"},
    {{"--connect-timeout", "5"}, "--connect-timeout is for the sender only"},
    {{"--local", "-r"}, "--local cannot be used with -r"},
    {{"--local", "-s", "x"}, "--local cannot be used with -s"},
    {{"--local", "-M"}, "-M cannot be used with --local"},
    {{"--local", "-L"}, "-L cannot be used with --local"},
    {{"--local", "-H"}, "-H cannot be used with --local"},
    {{"--local", "-N"}, "-N cannot be used with --local"},
    // protocol and rates
    {{"--udp-gso", "off", "-s", "x"}, "--udp-gso is for UDP only (add -u)"},
    {{"--udp-gro"}, "--udp-gro is for UDP only (add -u)"},
    {{"-s", "x", "-u", "--zerocopy"}, "--zerocopy is for TCP only (drop it or -u)"},
    {{"-s", "x", "-u", "--udp-payload", "both"},
     "--udp-payload: 'both' is not one of auto, native, compat"},
    {{"-s", "x", "-u", "--udp-gso", "maybe"}, "--udp-gso: 'maybe' is not one of on, off"},
    {{"-s", "x", "-u", "-b", "20", "--udp-payload", "native"},
     "--udp-payload native: datagrams of 20 bytes cannot hold the 24-byte header"},
    {{"-r", "-u", "--udp-payload", "native"}, "--udp-payload"},
    {{"-u", "--no-delay"}, "--no-delay is for TCP only (drop --no-delay or -u)"},
    {{"-s", "x", "-P", "1", "-n", "1", "--fq-rate-limit", "100g"},
     "--fq-rate-limit: 100.00Gbps over 1 connection(s) is 12500000000 bytes/s"},
    {{"-s", "x", "-P", "64", "-n", "64", "-l", "10", "--fq-rate-limit", "100"},
     "--fq-rate-limit: 100 bits/s over 40960 connections is less than 1 byte/s"},
    // mappings
    {{"-m", "4,99999"}, "-m: CPU 99999 does not exist (this machine has 8 CPUs: 0..7)"},
    {{"-m", "4,8"}, "-m: CPU 8 does not exist"},
    {{"-m", "4,x"}, "-m: CPU 'x' is not '*' or a CPU id"},
    {{"-m", "4,-1"}, "-m: CPU '-1'"},
    {{"-m", "0"}, "-m: ports must be at least 1"},
    {{"-m", "abc"}, "-m: ports 'abc' is not a whole number"},
    {{"-m", "1,2,3,4"}, "-m: '1,2,3,4' has more than 3 fields"},
    {{"-m", ""}, "-m: empty mapping"},
    // names and words
    {{"--bakend", "epoll"}, "unknown option '--bakend' (did you mean '--backend'?)"},
    {{"--intervall", "1"}, "unknown option '--intervall' (did you mean '--interval'?)"},
    {{"--show"}, "option '--show' is ambiguous"},
    {{"--frobnicate"}, "unknown option '--frobnicate'"},
    {{"-z"}, "unknown option '-z'"},
    {{"-v"}, "unknown option '-v' (-V is verbose; the version is --version)"},
    {{"-Vz"}, "unknown option '-z' in '-Vz'"},
    {{"-no-delay"}, "unknown option '-no-delay' (did you mean '--no-delay'?)"},
    {{"-no-dealy"}, "unknown option '-no-dealy' (did you mean '--no-delay'?)"},
    {{"-show-tcp-retrans"}, "unknown option '-show-tcp-retrans' (did you mean"},
    {{"-s", "x", "-fq-rate-limit", "1g"}, "unknown option '-fq-rate-limit'"},
    {{"backends", "-V"}, "'backends' takes no arguments"},
    // ignored on the other role, but their values are still read
    {{"-r", "-n", "two"}, "-n: 'two'"},
    {{"-r", "-B", "fast"}, "-B: 'fast' is not a rate"},
    {{"-s", "x", "-M", "-e"}, "-M is for the receiver only"},
    // options typed with a typographic dash (pasted from a web page)
    {{"-s", "10.0.0.1", "\u2013u"},
     "'\u2013u' starts with a typographic dash (U+2013 EN DASH), not the ASCII '-': type '-u'"},
    {{"-s", "\u2013u", "10.0.0.1"}, "type '-u'"},  // not taken for -s's address
    {{"\u2014\u2014backend", "epoll"}, "(U+2014 EM DASH), not the ASCII '-': type '--backend'"},
    {{"\u2013-json", "f.json"}, "type '--json'"},
    {{"\u2014json", "f.json"}, "type '--json'"},
    {{"\u2212t", "5"}, "(U+2212 MINUS SIGN), not the ASCII '-': type '-t'"},
    {{"-P", "\u20134"}, "type '-4'"},
    {{"-r", "-x", "\u2013V"}, "type '-V'"},
    {{"--show-dev-interrupts", "\u2013"}, "'\u2013' starts with a typographic dash"},
    // values of long options
    {{"--backend="}, "--backend: the value is empty"},
    {{"--backend"}, "--backend needs a value (NAME)"},
    {{"--json"}, "--json needs a value (FILE)"},
    {{"--no-delay=yes"}, "--no-delay takes no value"},
    {{"--local=1"}, "--local takes no value"},
    {{"--show-nic-packets", "-V"}, "--show-nic-packets needs a value (IF)"},
    {{"--show-dev-interrupts="}, "--show-dev-interrupts: the value is empty"},
    {{"-s", "x", "-a", ""}, "-a: the value is empty"},
    // two result outputs naming one file would overwrite each other
    {{"-s", "x", "-j", "r.json", "--json", "r.json"},
     "-j and --json name the same file (r.json): one would overwrite the other"},
    {{"-r", "-x", "out", "--csv", "./out"}, "-x and --csv name the same file (./out)"},
    {{"-r", "-O", "a/../f", "--json-stream", "f"}, "-O and --json-stream name the same file (f)"},
    {{"-s", "x", "-x", "--json", "ntttcp-for-linux-log.xml"},
     "-x and --json name the same file (ntttcp-for-linux-log.xml)"},
};

TEST(BadCommandLines, EachIsRefusedWithOneLineNamingTheOption) {
  EXPECT_GE(std::size(bad_lines), 35u);
  for (const BadLine& bad : bad_lines) {
    std::string line;
    for (const std::string& word : bad.args) line += "'" + word + "' ";
    auto command = test::parse(bad.args);
    ASSERT_FALSE(command.has_value()) << "accepted: " << line;
    const std::string& message = command.error().message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << line << "-> " << message;
    EXPECT_NE(message.find(bad.names), std::string::npos)
        << line << "\n  got:      " << message << "\n  expected: ..." << bad.names << "...";
    EXPECT_FALSE(message.empty());
  }
}

}  // namespace
}  // namespace xttcp
