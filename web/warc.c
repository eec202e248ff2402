/* warc.c: see warc.h. Record layout per WARC/1.1 (ISO 28500:2017):
 *   WARC/1.1 CRLF, named fields CRLF, CRLF, block, CRLF CRLF. */
#include "warc.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "ascii.h"
#include "strbuf.h"

struct warc {
  pthread_mutex_t lock; /* guards fd writes, rng, records */
  int fd;
  uint64_t rng; /* splitmix64 state for record IDs */
  long records;
};

/* ---- ids, dates, digests ---- */

static uint64_t next_random(warc_t *w)
{
  uint64_t z = (w->rng += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* new_id: "<urn:uuid:...>" (version 4 layout) into OUT (>= 48 bytes). */
static void new_id(warc_t *w, char *out)
{
  pthread_mutex_lock(&w->lock);
  uint64_t a = next_random(w), b = next_random(w);
  pthread_mutex_unlock(&w->lock);
  a = (a & ~0xf000ULL) | 0x4000ULL;       /* version 4 */
  b = (b & ~(3ULL << 62)) | (2ULL << 62); /* variant 10 */
  snprintf(out, 48, "<urn:uuid:%08x-%04x-%04x-%04x-%012llx>",
           (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffff,
           (unsigned)a & 0xffff, (unsigned)(b >> 48) & 0xffff,
           (unsigned long long)(b & 0xffffffffffffULL));
}

static void now_iso(char *out, size_t n)
{
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* sha1_b32: "sha1:" + base32 (RFC 4648) of the SHA-1 of DATA into OUT
 * (>= 40 bytes). */
static void sha1_b32(const void *data, size_t len, char *out)
{
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned mdlen = 0;
  EVP_Digest(data, len, md, &mdlen, EVP_sha1(), NULL);
  char *o = out + sprintf(out, "sha1:");
  /* 20 bytes = 160 bits = 32 base32 digits, no padding. */
  for (int bit = 0; bit < 160; bit += 5) {
    int byte = bit / 8, off = bit % 8;
    unsigned v = (unsigned)md[byte] << 8 | (byte + 1 < 20 ? md[byte + 1] : 0);
    *o++ = alphabet[(v >> (11 - off)) & 31];
  }
  *o = '\0';
}

/* dechunk: the payload of a chunked body (transfer coding removed), into
 * OUT; a torn last chunk gives what arrived. The project's only chunk
 * parser: libcurl de-chunks the body the crawler reads, but the record
 * keeps the bytes as received, and WARC-Payload-Digest is over them
 * without the framing. */
static void dechunk(const char *p, size_t len, strbuf_t *out)
{
  size_t i = 0;
  while (i < len) {
    /* The chunk size: hex digits, read within LEN (P need not end in a
     * NUL). */
    size_t n = 0, digits = 0;
    int d;
    for (;
         i < len && (d = ascii_hexval((unsigned char)p[i])) >= 0 && digits < 16;
         i++, digits++)
      n = n * 16 + (size_t)d;
    const char *nl = memchr(p + i, '\n', len - i);
    if (nl == NULL || digits == 0 || n == 0)
      return;
    i = (size_t)(nl - p) + 1;
    size_t take = n < len - i ? n : len - i;
    strbuf_add(out, p + i, take);
    i += take + 2; /* CRLF after the data */
  }
}

/* ---- records ---- */

/* append: compress RECORD into one gzip member and append it. */
static int append(warc_t *w, const strbuf_t *record)
{
  z_stream z;
  memset(&z, 0, sizeof(z));
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    errno = ENOMEM;
    return -1;
  }
  size_t cap = deflateBound(&z, (uLong)record->len) + 64;
  unsigned char *out = malloc(cap);
  if (out == NULL) {
    deflateEnd(&z);
    errno = ENOMEM;
    return -1;
  }
  z.next_in = (unsigned char *)record->p;
  z.avail_in = (uInt)record->len;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  int rc = deflate(&z, Z_FINISH);
  size_t n = cap - z.avail_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) {
    free(out);
    errno = EIO;
    return -1;
  }
  pthread_mutex_lock(&w->lock);
  off_t start = lseek(w->fd, 0, SEEK_END);
  size_t done = 0;
  while (done < n) {
    ssize_t k = write(w->fd, out + done, n - done);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      break;
    done += (size_t)k;
  }
  if (done == n)
    w->records++;
  else if (start >= 0 && ftruncate(w->fd, start) != 0)
    done = 0; /* a torn member stays; readers stop there */
  pthread_mutex_unlock(&w->lock);
  free(out);
  return done == n ? 0 : -1;
}

/* record: build a record of TYPE with extra named FIELDS (CRLF-ended
 * lines, may be empty) around BLOCK and append it. */
static int record(warc_t *w, const char *type, const char *id,
                  const char *fields, const char *content_type,
                  const strbuf_t *block)
{
  char date[32], digest[48];
  now_iso(date, sizeof(date));
  sha1_b32(block->p ? block->p : "", block->len, digest);
  strbuf_t r = STRBUF_INIT;
  strbuf_addf(&r,
              "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: %s\r\n"
              "WARC-Date: %s\r\n%sWARC-Block-Digest: %s\r\n"
              "Content-Type: %s\r\nContent-Length: %zu\r\n\r\n",
              type, id, date, fields, digest, content_type, block->len);
  strbuf_add(&r, block->p ? block->p : "", block->len);
  strbuf_add(&r, "\r\n\r\n", 4);
  int rc = r.oom ? (errno = ENOMEM, -1) : append(w, &r);
  free(r.p);
  return rc;
}

/* cut_torn_tail: truncate FD after its last complete gzip member, so
 * that records appended now (a resumed crawl) follow readable ones. */
static int cut_torn_tail(int fd)
{
  off_t size = lseek(fd, 0, SEEK_END);
  if (size <= 0)
    return 0;
  z_stream z;
  memset(&z, 0, sizeof(z));
  if (inflateInit2(&z, 15 + 16) != Z_OK)
    return -1;
  enum { CHUNK = 1 << 20 };
  unsigned char *in = malloc(CHUNK), *out = malloc(CHUNK);
  off_t pos = 0, good = 0; /* bytes read; end of the last whole member */
  int rc = 0;
  bool bad = false;
  while (rc == 0 && !bad && in != NULL && out != NULL) {
    ssize_t r = pread(fd, in, CHUNK, pos);
    if (r <= 0) {
      rc = r < 0 ? -1 : 0;
      break;
    }
    z.next_in = in;
    z.avail_in = (uInt)r;
    while (z.avail_in > 0) {
      z.next_out = out;
      z.avail_out = CHUNK;
      int zr = inflate(&z, Z_NO_FLUSH);
      if (zr == Z_STREAM_END) {
        good = pos + (off_t)(z.next_in - in);
        inflateReset(&z);
      } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
        bad = true;
        break;
      }
    }
    pos += r;
  }
  inflateEnd(&z);
  if (in == NULL || out == NULL)
    rc = -1;
  free(in);
  free(out);
  if (rc == 0 && good < size && ftruncate(fd, good) != 0)
    rc = -1;
  return rc;
}

warc_t *warc_open(const char *path, const char *software,
                  const char *user_agent)
{
  warc_t *w = calloc(1, sizeof(*w));
  if (w == NULL)
    return NULL;
  w->fd = open(path, O_RDWR | O_CREAT | O_APPEND, 0644);
  if (w->fd < 0 || cut_torn_tail(w->fd) != 0) {
    if (w->fd >= 0)
      close(w->fd);
    free(w);
    return NULL;
  }
  pthread_mutex_init(&w->lock, NULL);
  /* Record IDs need to be unique, not secret: seed from the kernel. */
  int r = open("/dev/urandom", O_RDONLY);
  if (r < 0 || read(r, &w->rng, sizeof(w->rng)) != sizeof(w->rng))
    w->rng = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
  if (r >= 0)
    close(r);
  const char *base = strrchr(path, '/');
  char id[48];
  new_id(w, id);
  strbuf_t fields = STRBUF_INIT, block = STRBUF_INIT;
  strbuf_addf(&fields, "WARC-Filename: %s\r\n", base ? base + 1 : path);
  strbuf_addf(&block,
              "software: %s\r\nformat: WARC File Format 1.1\r\n"
              "conformsTo: http://iipc.github.io/warc-specifications/"
              "specifications/warc-format/warc-1.1/\r\n"
              "http-header-user-agent: %s\r\n",
              software, user_agent);
  int rc = fields.oom ? -1
                      : record(w, "warcinfo", id, fields.p,
                               "application/warc-fields", &block);
  free(fields.p);
  free(block.p);
  if (rc != 0) {
    warc_close(w);
    return NULL;
  }
  return w;
}

int warc_write_exchange(warc_t *w, const char *url, const fetch_result_t *res)
{
  if (res->raw_head_len == 0)
    return 0; /* no response: nothing happened on the wire to keep */
  char req_id[48], resp_id[48], digest[48];
  new_id(w, req_id);
  new_id(w, resp_id);
  strbuf_t f = STRBUF_INIT, block = STRBUF_INIT, payload = STRBUF_INIT;

  /* The request, as sent. */
  strbuf_add(&block, res->raw_request ? res->raw_request : "",
             res->raw_request_len);
  strbuf_addf(&f, "WARC-Target-URI: %s\r\n", url);
  if (res->ip[0])
    strbuf_addf(&f, "WARC-IP-Address: %s\r\n", res->ip);
  strbuf_addf(&f, "WARC-Concurrent-To: %s\r\n", resp_id);
  int rc = f.oom || block.oom
           ? (errno = ENOMEM, -1)
           : record(w, "request", req_id, f.p,
                    "application/http;msgtype=request", &block);
  free(f.p);
  free(block.p);
  memset(&f, 0, sizeof(f));
  memset(&block, 0, sizeof(block));

  /* The response: raw head and body; the payload digest is over the
   * entity body, i.e. without the chunked transfer coding. */
  const char *body = res->raw_body ? res->raw_body : "";
  strbuf_add(&block, res->raw_head, res->raw_head_len);
  strbuf_add(&block, body, res->raw_body_len);
  if (res->raw_chunked)
    dechunk(body, res->raw_body_len, &payload);
  else
    strbuf_add(&payload, body, res->raw_body_len);
  sha1_b32(payload.p ? payload.p : "", payload.len, digest);
  strbuf_addf(&f, "WARC-Target-URI: %s\r\n", url);
  if (res->ip[0])
    strbuf_addf(&f, "WARC-IP-Address: %s\r\n", res->ip);
  strbuf_addf(&f, "WARC-Concurrent-To: %s\r\nWARC-Payload-Digest: %s\r\n",
              req_id, digest);
  if (res->raw_truncated)
    strbuf_addf(&f, "WARC-Truncated: length\r\n");
  if (rc == 0)
    rc = f.oom || block.oom || payload.oom
         ? (errno = ENOMEM, -1)
         : record(w, "response", resp_id, f.p,
                  "application/http;msgtype=response", &block);
  free(f.p);
  free(block.p);
  free(payload.p);
  return rc;
}

long warc_records(warc_t *w)
{
  pthread_mutex_lock(&w->lock);
  long n = w->records;
  pthread_mutex_unlock(&w->lock);
  return n;
}

int warc_close(warc_t *w)
{
  if (w == NULL)
    return 0;
  int rc = fsync(w->fd) == 0 ? 0 : -1;
  if (close(w->fd) != 0)
    rc = -1;
  pthread_mutex_destroy(&w->lock);
  free(w);
  return rc;
}
