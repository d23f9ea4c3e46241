// write_file_atomically on Windows: CREATE_NEW temporary file, FlushFileBuffers, then
// MoveFileExA with MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH (rename() cannot replace
// an existing file there).
#include <windows.h>

#include <fmt/format.h>

#include <atomic>

#include "engine/report/result_file.hh"

namespace xttcp {

namespace {

// The system's message for a Win32 error code, without the trailing ".\r\n".
std::string windows_message(DWORD code) {
  char text[512] = {};
  DWORD length = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr,
                                code, 0, text, sizeof text, nullptr);
  std::string message(text, length);
  while (!message.empty() && (message.back() == '\n' || message.back() == '\r' ||
                              message.back() == '.' || message.back() == ' '))
    message.pop_back();
  if (message.empty()) message = fmt::format("Windows error {}", code);
  return message;
}

Error write_error(const std::string& path, DWORD code) {
  return fail(fmt::format("cannot write {}: {}", path, windows_message(code)));
}

class Handle {
 public:
  explicit Handle(HANDLE handle) : handle_(handle) {}
  ~Handle() { close(); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  HANDLE get() const { return handle_; }
  bool close() {
    if (handle_ == INVALID_HANDLE_VALUE) return true;
    const bool closed = CloseHandle(handle_) != 0;
    handle_ = INVALID_HANDLE_VALUE;
    return closed;
  }

 private:
  HANDLE handle_;
};

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view content) {
  static std::atomic<unsigned> counter{0};
  std::string temp;
  HANDLE created = INVALID_HANDLE_VALUE;
  for (int attempt = 0; attempt < 100 && created == INVALID_HANDLE_VALUE; ++attempt) {
    temp = fmt::format("{}.tmp.{}.{}", path, GetCurrentProcessId(), counter.fetch_add(1));
    created = CreateFileA(temp.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                          FILE_ATTRIBUTE_NORMAL, nullptr);
    if (created == INVALID_HANDLE_VALUE && GetLastError() != ERROR_FILE_EXISTS)
      return write_error(path, GetLastError());
  }
  if (created == INVALID_HANDLE_VALUE) return write_error(path, ERROR_FILE_EXISTS);
  Handle file(created);

  auto give_up = [&](DWORD code) -> Error {
    file.close();
    DeleteFileA(temp.c_str());
    return write_error(path, code);
  };

  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const DWORD chunk = left > (1u << 30) ? (1u << 30) : static_cast<DWORD>(left);
    DWORD written = 0;
    if (!WriteFile(file.get(), data, chunk, &written, nullptr)) return give_up(GetLastError());
    data += written;
    left -= written;
  }
  if (!FlushFileBuffers(file.get())) return give_up(GetLastError());
  if (!file.close()) {
    const DWORD code = GetLastError();
    DeleteFileA(temp.c_str());
    return write_error(path, code);
  }
  if (!MoveFileExA(temp.c_str(), path.c_str(),
                   MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
    const DWORD code = GetLastError();
    DeleteFileA(temp.c_str());
    return write_error(path, code);
  }
  return ok();
}

Status check_result_path(const std::string& path, std::string_view option) {
  std::string directory = path;
  const size_t slash = directory.find_last_of("/\\");
  directory = slash == std::string::npos ? "." : directory.substr(0, slash == 0 ? 1 : slash);
  const DWORD attributes = GetFileAttributesA(directory.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES || (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0)
    return fail(fmt::format("{}: cannot write {}: its directory does not exist", option, path));
  const DWORD existing = GetFileAttributesA(path.c_str());
  if (existing != INVALID_FILE_ATTRIBUTES && (existing & FILE_ATTRIBUTE_DIRECTORY) != 0)
    return fail(fmt::format("{}: cannot write {}: it is a directory", option, path));
  return ok();
}

// Windows result paths are files; NUL and CON are not written through.
bool writes_through(const std::string&) { return false; }

}  // namespace xttcp
