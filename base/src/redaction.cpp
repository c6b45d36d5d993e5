// Passwords of connection strings replaced by "***" (URI user info, password= values).
#include "hetscale/base/redaction.hpp"

#include <cctype>
#include <string_view>

namespace hetscale {
namespace {

constexpr std::string_view mask = "***";

bool space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

// postgresql://user:PASSWORD@host...: the user info ends at '@'; the authority at '/',
// '?', '#', white space or a quote (the end of the string the URI sits in).
// Calls change(text, colon, at_sign) for the ":PASSWORD@" of every such URI; a change keeps
// the scheme where it was, so the search goes on after it.
template <typename Change>
void for_each_uri_password(std::string& text, Change change) {
  for (const std::string_view scheme : {"postgresql://", "postgres://"}) {
    for (std::size_t at = text.find(scheme); at != std::string::npos;
         at = text.find(scheme, at + 1)) {
      const std::size_t begin = at + scheme.size();
      const std::size_t end = text.find_first_of("/?#@ \t\r\n\"'", begin);
      if (end == std::string::npos || text[end] != '@') continue;
      const std::size_t colon = text.find(':', begin);
      if (colon == std::string::npos || colon > end) continue;
      change(text, colon, end);
    }
  }
}

void redact_uri_user_info(std::string& text) {
  for_each_uri_password(text, [](std::string& t, std::size_t colon, std::size_t end) {
    t.replace(colon + 1, end - colon - 1, mask);
  });
}

// A keyword starts the text or follows white space, '?', '&' or a quote.
bool keyword_start(const std::string& text, std::size_t at) {
  if (at == 0) return true;
  const char c = text[at - 1];
  return space(c) || c == '?' || c == '&' || c == '"' || c == '\'';
}

// `password = value` (key=value form, spaces allowed around '=') and `password=value` in a
// URI query. A quoted value ('p w', with \' and \\) keeps its quotes; an unquoted one ends
// at white space, '&' (the next URI parameter) or a quote (the end of the string it is in).
void redact_password_values(std::string& text) {
  constexpr std::string_view keyword = "password";
  for (std::size_t at = text.find(keyword); at != std::string::npos;
       at = text.find(keyword, at + 1)) {
    if (!keyword_start(text, at)) continue;
    std::size_t i = at + keyword.size();
    while (i < text.size() && space(text[i])) ++i;
    if (i >= text.size() || text[i] != '=') continue;
    ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::size_t begin = i;
    std::size_t end = i;
    if (i < text.size() && text[i] == '\'') {
      begin = i + 1;
      end = begin;
      while (end < text.size() && text[end] != '\'') end += text[end] == '\\' ? 2 : 1;
      end = std::min(end, text.size());
    } else {
      while (end < text.size() && !space(text[end]) && text[end] != '&' && text[end] != '"' &&
             text[end] != '\'')
        ++end;
    }
    if (end == begin) continue;  // an empty password: nothing to hide
    text.replace(begin, end - begin, mask);
    at = begin;
  }
}

// The user info's ":PASSWORD" of postgresql://user:PASSWORD@host, removed.
void remove_uri_passwords(std::string& text) {
  for_each_uri_password(text, [](std::string& t, std::size_t colon, std::size_t end) { t.erase(colon, end - colon); });
}

// A `password=value` parameter, removed with one separator: in a URI query "?password=x&"
// or "&password=x", in key=value form the white space after it (or before it, at the end).
void remove_password_values(std::string& text) {
  constexpr std::string_view keyword = "password";
  for (std::size_t at = text.find(keyword); at != std::string::npos; at = text.find(keyword, at)) {
    if (!keyword_start(text, at)) {
      ++at;
      continue;
    }
    std::size_t i = at + keyword.size();
    while (i < text.size() && space(text[i])) ++i;
    if (i >= text.size() || text[i] != '=') {
      ++at;
      continue;
    }
    ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::size_t end = i;
    if (i < text.size() && text[i] == '\'') {
      end = i + 1;
      while (end < text.size() && text[end] != '\'') end += text[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, text.size());  // with the closing quote
    } else {
      while (end < text.size() && !space(text[end]) && text[end] != '&' && text[end] != '"' &&
             text[end] != '\'')
        ++end;
    }
    std::size_t begin = at;
    const char before = at > 0 ? text[at - 1] : '\0';
    if (before == '&') {
      --begin;  // "...&password=x": the '&' with it
    } else if (before == '?') {
      if (end < text.size() && text[end] == '&') ++end;  // "?password=x&next": "?next"
      else --begin;                                       // "?password=x" alone: no query left
    } else {
      while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
      if (end >= text.size() || text[end] == '"' || text[end] == '\'')
        while (begin > 0 && (text[begin - 1] == ' ' || text[begin - 1] == '\t')) --begin;
    }
    text.erase(begin, end - begin);
    at = begin;
  }
}

}  // namespace

std::string remove_connection_passwords(std::string text) {
  remove_uri_passwords(text);
  remove_password_values(text);
  return text;
}

std::string redact_connection_passwords(std::string text) {
  redact_uri_user_info(text);
  redact_password_values(text);
  return text;
}

}  // namespace hetscale
