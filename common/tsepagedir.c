/* tsepagedir.c: see tsepagedir.h. The public face of pagedir.c's readers:
 * each function is the internal one under the library's own prefix. */
#include "tsepagedir.h"

#include "pagedir.h"

int tsepagedir_validate(const char *dir, char *err, size_t n)
{
  return pagedir_validate(dir, err, n);
}

int tsepagedir_count(const char *dir)
{
  return pagedir_count(dir);
}

int tsepagedir_load(const char *dir, int id, tsepagedir_page_t *page)
{
  return pagedir_load(dir, id, page);
}

char *tsepagedir_load_url(const char *dir, int id)
{
  return pagedir_load_url(dir, id);
}

void tsepagedir_page_free(tsepagedir_page_t *page)
{
  pagedir_page_free(page);
}

char *tsepagedir_param(const char *dir, const char *key)
{
  return pagedir_param(dir, key);
}

char *tsepagedir_params(const char *dir)
{
  return pagedir_marker_read(dir);
}
