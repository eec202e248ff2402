/* fetch_test.c: unit tests for web/fetch's words for failures (no
 * network: the requests themselves are the integration tests'). */
#include "fetch.h"

#include "../../testhelp.h"

#include <curl/curl.h>
#include <stdio.h>

static void test_status_text(void)
{
  CHECK_STR(fetch_status_text(404), "Not Found");
  CHECK_STR(fetch_status_text(500), "Internal Server Error");
  CHECK_STR(fetch_status_text(429), "Too Many Requests");
  CHECK_STR(fetch_status_text(308), "Permanent Redirect");
  CHECK_STR(fetch_status_text(299), "");
  CHECK_STR(fetch_status_text(-1), "");
}

/* The cause is the part of the reason that does not name the URL. */
static void test_cause(void)
{
  char buf[64];
  fetch_result_t r = { .outcome = FETCH_HTTP_ERROR, .status = 404 };
  snprintf(r.error, sizeof(r.error), "HTTP 404 Not Found");
  CHECK_STR(fetch_cause(&r, buf, sizeof(buf)), "HTTP 404 Not Found");
  snprintf(r.error, sizeof(r.error), "redirect out of scope: http://x/");
  CHECK_STR(fetch_cause(&r, buf, sizeof(buf)), "redirect out of scope");
  r.outcome = FETCH_WRONG_TYPE;
  snprintf(r.error, sizeof(r.error), "not a page: image/png");
  CHECK_STR(fetch_cause(&r, buf, sizeof(buf)), "not a page");
  /* libcurl's message names the address and the time taken; its
   * code's text does not. */
  r.outcome = FETCH_NET_ERROR;
  r.curl_code = CURLE_COULDNT_CONNECT;
  snprintf(r.error, sizeof(r.error),
           "Failed to connect to 127.0.0.1 "
           "port 1 after 0 ms: Couldn't connect to server");
  CHECK_STR(fetch_cause(&r, buf, sizeof(buf)),
            curl_easy_strerror(CURLE_COULDNT_CONNECT));
  /* Cut to the buffer, still terminated. */
  CHECK_STR(fetch_cause(&r, buf, 8), "Couldn'");
  /* A certificate's problem is in the message only. */
  r.curl_code = CURLE_PEER_FAILED_VERIFICATION;
  snprintf(r.error, sizeof(r.error),
           "SSL certificate problem: unable to "
           "get local issuer certificate");
  CHECK_STR(fetch_cause(&r, buf, sizeof(buf)), r.error);
}

int main(void)
{
  RUN(test_status_text);
  RUN(test_cause);
  return TEST_EXIT();
}
