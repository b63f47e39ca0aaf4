// Today's date as llama.cpp hands it to chat templates (common_chat_extra_context): `date_string`
// ("02 Dec 2026", read by Llama 3.x templates, which otherwise print their own 2024 default),
// and `datetime` ("Dec 02 2026", firefunction's), in local time as llama.cpp's strftime gives it
// (%d %b %Y and %b %d %Y). (`strftime_now(format)`, Llama 3.1's, is the Jinja interpreter's own.)
// Pure.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The date variables of a template's context, for the moment `now`. */
export function templateDate(now: Date): Record<string, unknown> {
  const day = String(now.getDate()).padStart(2, '0');
  const month = MONTHS[now.getMonth()] as string;
  const year = String(now.getFullYear());
  return {
    date_string: `${day} ${month} ${year}`,
    datetime: `${month} ${day} ${year}`,
  };
}
