/* SPDX-License-Identifier: MIT */
/* tools/report-html.c: the page of `sysgate report --html`. */
#ifndef SYSGATE_TOOLS_REPORT_HTML_H
#define SYSGATE_TOOLS_REPORT_HTML_H

#include <stdio.h>

struct json_t;

/*
 * Write the page: one self-contained HTML file (inline style and script,
 * nothing fetched) that draws data, the report's JSON model (see
 * html_data() in report.c).  title is shown escaped.  Returns 0 or
 * -errno.
 */
int report_html_write(FILE *f, const char *title, struct json_t *data);

#endif
