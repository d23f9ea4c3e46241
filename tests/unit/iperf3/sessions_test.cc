// Both ends' sessions driven by the other end's bytes from the transcripts of Debian's iperf3
// 3.12 (tests/reference/iperf3-3.12/wire-*.txt): each writes exactly what the real program
// wrote (JSON numbers aside: -1 as -1), then the paths a hostile or failing peer takes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/iperf3/client_session.hh"
#include "engine/iperf3/errors.hh"
#include "engine/iperf3/server_session.hh"
#include "tests/unit/iperf3/transcript.hh"

namespace xttcp::iperf3 {
namespace {

using Bytes = std::span<const unsigned char>;
Bytes bytes(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}
std::span<const unsigned char, cookie_size> cookie_bytes(const std::string& s) {
  return std::span<const unsigned char, cookie_size>(
      reinterpret_cast<const unsigned char*>(s.data()), cookie_size);
}

// One side's items of a transcript: the cookie, a JSON message's text, or a state.
struct Item {
  enum Kind { cookie, json, state, server_error } kind;
  std::string text;  // cookie: its 37 bytes; json: the text
  int code = 0;      // state: its byte; server_error: the iperf3 error code
};
struct Transcript {
  std::vector<Item> c2s, s2c;
};

Transcript read_transcript(const std::string& name) {
  std::ifstream in(std::filesystem::path(IPERF3_REFERENCE_DIR) / name);
  Transcript t;
  std::vector<Item>* side = nullptr;
  for (std::string line; std::getline(in, line);) {
    if (line == "== c2s") side = &t.c2s;
    if (line == "== s2c") side = &t.s2c;
    if (side == nullptr || line.starts_with("#")) continue;
    if (line.starts_with("COOKIE b'")) {  // 36 characters, then \x00
      side->push_back({Item::cookie, line.substr(9, 36) + std::string(1, '\0')});
    } else if (line.starts_with("JSON len=")) {
      side->push_back({Item::json, line.substr(line.find('{'))});
    } else if (line.starts_with("STATE 254 SERVER_ERROR")) {
      const std::size_t at = line.find("i_errno=");
      side->push_back({Item::server_error, "", std::stoi(line.substr(at + 8))});
    } else if (line.starts_with("STATE ")) {
      side->push_back({Item::state, "", std::stoi(line.substr(6))});
    }
  }
  return t;
}

// What one side's items are on the wire (its JSON as xttcp writes numbers).
std::string wire_of(const std::vector<Item>& items) {
  std::string out;
  for (const Item& item : items) {
    if (item.kind == Item::cookie) out += item.text;
    if (item.kind == Item::json) out += frame_message(with_minus_one(item.text));
    if (item.kind == Item::state) out += static_cast<char>(item.code);
    if (item.kind == Item::server_error) {
      const auto e = server_error(item.code, 0);
      out.append(e.begin(), e.end());
    }
  }
  return out;
}

std::vector<std::string> transcripts() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(IPERF3_REFERENCE_DIR))
    if (entry.path().filename().string().starts_with("wire-"))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Feeds `item` of the client's to the server; returns every event it made, writes appended.
std::vector<ServerStep::Event> feed(ServerSession& server, const Item& item, std::string& wrote) {
  std::string data;
  if (item.kind == Item::cookie) data = item.text;
  if (item.kind == Item::json) data = frame_message(item.text);
  if (item.kind == Item::state) data = std::string(1, static_cast<char>(item.code));
  std::vector<ServerStep::Event> events;
  for (ServerStep step = server.on_control(bytes(data)); step.event != ServerStep::Event::none;
       step = server.on_control({})) {
    wrote += step.write;
    events.push_back(step.event);
    if (step.event == ServerStep::Event::failed) ADD_FAILURE() << step.message;
    if (step.event == ServerStep::Event::failed) break;
  }
  return events;
}

TEST(ServerSession, WritesWhatA312ServerWroteInEveryTranscript) {
  for (const std::string& name : transcripts()) {
    SCOPED_TRACE(name);
    const Transcript t = read_transcript(name);
    ServerSession server;
    std::string wrote;
    std::string cookie;
    std::size_t server_json = 0;  // the server's results: the s2c JSON message
    for (const Item& item : t.s2c)
      if (item.kind == Item::json) server_json = &item - t.s2c.data();
    for (const Item& item : t.c2s) {
      if (item.kind == Item::cookie) cookie = item.text;
      const auto events = feed(server, item, wrote);
      for (ServerStep::Event e : events) {
        if (e == ServerStep::Event::parameters) {
          if (t.s2c[1].kind == Item::server_error) {  // wire-serr: -w 400M over rmem_max
            wrote += server.refuse(t.s2c[1].code, 0);
            continue;
          }
          wrote += server.accept_parameters();
          const bool udp = server.parameters().protocol == Protocol::udp;
          for (uint32_t i = 0; i < server.streams_expected(); ++i) {
            StreamAdmission a =
                udp ? server.on_udp_stream() : server.on_stream(cookie_bytes(cookie));
            ASSERT_TRUE(a.stream);
            EXPECT_EQ(a.id, i == 0 ? 1 : static_cast<int32_t>(i) + 2);
            EXPECT_EQ(a.server_sends,
                      server.parameters().reverse ||
                          (server.parameters().bidirectional && i >= server.parameters().parallel));
            EXPECT_EQ(a.all_streams, i + 1 == server.streams_expected());
            wrote += a.control_write;
          }
        }
        if (e == ServerStep::Event::test_end) wrote += server.results_wanted();
        if (e == ServerStep::Event::client_results)
          wrote += server.send_results(
              *read_results(t.s2c[server_json].text, max_results_with_output_bytes));
      }
    }
    EXPECT_EQ(wrote, wire_of(t.s2c));
  }
}

TEST(ClientSession, WritesWhatA312ClientWroteInEveryTranscript) {
  for (const std::string& name : transcripts()) {
    SCOPED_TRACE(name);
    const Transcript t = read_transcript(name);
    Cookie cookie{};
    std::copy_n(t.c2s[0].text.begin(), cookie_size, cookie.begin());
    ASSERT_EQ(t.c2s[1].kind, Item::json);
    ClientSession client(cookie, *read_parameters(t.c2s[1].text));
    std::string wrote = client.hello();
    std::string last_failure;
    for (const Item& item : t.s2c) {
      std::string data = wire_of({item});
      for (ClientStep step = client.on_control(bytes(data)); step.event != ClientStep::Event::none;
           step = client.on_control({})) {
        wrote += step.write;
        if (step.event == ClientStep::Event::test_running) wrote += client.end_test();
        if (step.event == ClientStep::Event::exchange_results)
          wrote += client.send_results(*read_results(t.c2s[3].text, max_results_bytes));
        if (step.event == ClientStep::Event::failed) last_failure = step.message;
      }
    }
    if (name == "wire-serr.txt") {
      EXPECT_EQ(last_failure, "socket buffer size not set correctly");
      EXPECT_EQ(wrote, wire_of({t.c2s[0], t.c2s[1]}));
    } else {
      EXPECT_EQ(last_failure, "");
      EXPECT_EQ(wrote, wire_of(t.c2s));
    }
  }
}

TEST(ServerSession, AStrangersConnectionIsRefusedAndTheTestGoesOn) {
  ServerSession server;
  const std::string cookie = std::string(36, 'a') + std::string(1, '\0');
  std::string wrote;
  feed(server, {Item::cookie, cookie}, wrote);
  feed(server, {Item::json, R"({"tcp":true,"time":1,"parallel":2})"}, wrote);
  // Before CREATE_STREAMS, even the right cookie is refused: 3.12 reads nothing then.
  EXPECT_FALSE(server.on_stream(cookie_bytes(cookie)).stream);
  wrote += server.accept_parameters();
  const std::string other = std::string(36, 'b') + std::string(1, '\0');
  StreamAdmission stranger = server.on_stream(cookie_bytes(other));
  EXPECT_FALSE(stranger.stream);
  EXPECT_EQ(stranger.write, std::string(1, '\xff'));
  EXPECT_TRUE(server.on_stream(cookie_bytes(cookie)).stream);
  EXPECT_TRUE(server.on_stream(cookie_bytes(cookie)).all_streams);
  // A third connection, once the test runs, is a stranger too.
  EXPECT_FALSE(server.on_stream(cookie_bytes(cookie)).stream);
  EXPECT_FALSE(server.on_udp_stream().stream);  // a TCP test has no UDP streams
}

TEST(ServerSession, AClientThatBreaksTheProtocolEndsItsTestInOneLine) {
  const std::string cookie = std::string(36, 'a') + std::string(1, '\0');
  auto run = [&](std::vector<std::string> chunks) {
    ServerSession server;
    ServerStep last;
    for (const std::string& chunk : chunks) {
      for (ServerStep step = server.on_control(bytes(chunk)); step.event != ServerStep::Event::none;
           step = server.on_control({})) {
        last = step;
        if (step.event == ServerStep::Event::parameters) (void)server.accept_parameters();
      }
    }
    return last;
  };
  const std::string params = frame_message(R"({"tcp":true,"parallel":1})");
  // TEST_END before any stream came: out of turn.
  ServerStep out_of_turn = run({cookie, params, "\x04"});
  EXPECT_EQ(out_of_turn.event, ServerStep::Event::failed);
  EXPECT_EQ(out_of_turn.message, "received an unknown control message (TEST_END out of turn)");
  EXPECT_EQ(run({cookie, params, "\x07"}).message, "received an unknown control message");
  // A length the bounds refuse: nothing is allocated for it.
  ServerStep huge = run({cookie, std::string("\xff\xff\xff\xff", 4)});
  EXPECT_EQ(huge.message, "iperf3 parameters: 4294967295 bytes announced, over the limit of 8192");
  EXPECT_EQ(run({cookie, frame_message(R"({"tcp":true,"parallel":999})")}).message,
            "iperf3 parameters: parallel 999 is out of range (1 to 128 streams)");
  // CLIENT_TERMINATE at any time.
  EXPECT_EQ(run({cookie, params, "\x0c"}).event, ServerStep::Event::client_terminated);
  // A client that floods its control connection is not read further.
  EXPECT_EQ(run({cookie, params, std::string(200000, '\x01')}).message,
            "the client sent more on its control connection than the protocol holds");
  // TEST_START from a client is a no-op: what follows it in the same read is taken at once.
  {
    ServerSession s;
    for (const std::string& chunk : {cookie, params}) {
      for (ServerStep step = s.on_control(bytes(chunk)); step.event != ServerStep::Event::none;
           step = s.on_control({}))
        if (step.event == ServerStep::Event::parameters) (void)s.accept_parameters();
    }
    ASSERT_TRUE(s.on_stream(cookie_bytes(cookie)).all_streams);
    EXPECT_EQ(s.on_control(bytes(std::string("\x01\x01\x01\x04"))).event,
              ServerStep::Event::test_end);
  }
  // The cookie and the parameters in one read, in pieces of one byte: the same events.
  ServerSession server;
  std::vector<ServerStep::Event> events;
  for (char c : cookie + params)
    for (ServerStep step = server.on_control(bytes(std::string(1, c)));
         step.event != ServerStep::Event::none; step = server.on_control({}))
      events.push_back(step.event);
  EXPECT_EQ(events, (std::vector{ServerStep::Event::cookie, ServerStep::Event::parameters}));
  EXPECT_EQ(server.on_control_closed().message,
            "the client has unexpectedly closed the connection");
}

TEST(ClientSession, TheServersRefusalsAre312sLines) {
  Cookie cookie{};
  Parameters p;
  auto last = [&](const std::string& from_server) {
    ClientSession client(cookie, p);
    ClientStep last_step;
    for (ClientStep step = client.on_control(bytes(from_server));
         step.event != ClientStep::Event::none; step = client.on_control({}))
      last_step = step;
    return last_step;
  };
  EXPECT_EQ(last("\xff").message, "the server is busy running a test. try again later");
  EXPECT_EQ(last("\x0b").message, "the server has terminated");
  EXPECT_EQ(last(std::string("\x09\x0a\xfe\x00\x00\x00\x06\x00\x00\x00\x00", 11)).message,
            "number of parallel streams too large (maximum = 128)");
  EXPECT_EQ(last(std::string("\x09\xfe\x00\x00\x00\x66\x00\x00\x00\x62", 10)).message,
            "unable to start listener for connections: Address already in use");
  EXPECT_EQ(last(std::string("\x09\xfe\x00\x00\x01\xff\x00\x00\x00\x00", 10)).message,
            "int_errno=511: ");
  // SERVER_ERROR's codes in pieces: nothing before all 8 came.
  ClientSession client(cookie, p);
  EXPECT_EQ(client.on_control(bytes(std::string("\xfe\x00\x00", 3))).event,
            ClientStep::Event::none);
  EXPECT_EQ(client.on_control(bytes(std::string("\x00\x8d\x00\x00\x00\x00", 6))).message,
            "socket buffer size not set correctly");
  EXPECT_EQ(last("\x0a").message, "received an unknown control message");  // before PARAM_EXCHANGE
  ClientSession closed(cookie, p);
  EXPECT_EQ(closed.on_control_closed().message, "control socket has closed unexpectedly");
}

}  // namespace
}  // namespace xttcp::iperf3
