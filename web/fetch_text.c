/* fetch_text.c: the words for a fetch's outcome (fetch.h): the reason
 * phrase of a status, and a failure's cause without what names a URL. */
#include "fetch.h"

#include <curl/curl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const char *fetch_status_text(long status)
{
  /* RFC 9110, section 15, with 429 (RFC 6585) and 451 (RFC 7725). */
  static const struct {
    short code;
    const char *text;
  } phrases[] = {
    { 100, "Continue" },
    { 101, "Switching Protocols" },
    { 200, "OK" },
    { 201, "Created" },
    { 202, "Accepted" },
    { 203, "Non-Authoritative Information" },
    { 204, "No Content" },
    { 205, "Reset Content" },
    { 206, "Partial Content" },
    { 300, "Multiple Choices" },
    { 301, "Moved Permanently" },
    { 302, "Found" },
    { 303, "See Other" },
    { 304, "Not Modified" },
    { 305, "Use Proxy" },
    { 307, "Temporary Redirect" },
    { 308, "Permanent Redirect" },
    { 400, "Bad Request" },
    { 401, "Unauthorized" },
    { 402, "Payment Required" },
    { 403, "Forbidden" },
    { 404, "Not Found" },
    { 405, "Method Not Allowed" },
    { 406, "Not Acceptable" },
    { 407, "Proxy Authentication Required" },
    { 408, "Request Timeout" },
    { 409, "Conflict" },
    { 410, "Gone" },
    { 411, "Length Required" },
    { 412, "Precondition Failed" },
    { 413, "Content Too Large" },
    { 414, "URI Too Long" },
    { 415, "Unsupported Media Type" },
    { 416, "Range Not Satisfiable" },
    { 417, "Expectation Failed" },
    { 421, "Misdirected Request" },
    { 422, "Unprocessable Content" },
    { 426, "Upgrade Required" },
    { 428, "Precondition Required" },
    { 429, "Too Many Requests" },
    { 431, "Request Header Fields Too Large" },
    { 451, "Unavailable For Legal Reasons" },
    { 500, "Internal Server Error" },
    { 501, "Not Implemented" },
    { 502, "Bad Gateway" },
    { 503, "Service Unavailable" },
    { 504, "Gateway Timeout" },
    { 505, "HTTP Version Not Supported" },
  };
  for (size_t i = 0; i < sizeof(phrases) / sizeof(phrases[0]); i++)
    if (phrases[i].code == status)
      return phrases[i].text;
  return "";
}

const char *fetch_cause(const fetch_result_t *r, char *buf, size_t n)
{
  /* A certificate's message says what is wrong with it, and names no
   * more than the host; the code's text only that something is. */
  bool whole = r->curl_code == CURLE_PEER_FAILED_VERIFICATION;
  const char *s = r->curl_code != 0 && !whole
                  ? curl_easy_strerror((CURLcode)r->curl_code)
                  : r->error;
  const char *colon = r->curl_code != 0 ? NULL : strstr(s, ": ");
  int len = colon != NULL ? (int)(colon - s) : (int)strlen(s);
  snprintf(buf, n, "%.*s", len, s);
  return buf;
}
