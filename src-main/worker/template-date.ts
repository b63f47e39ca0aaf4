// Today's date as llama.cpp hands it to chat templates (common_chat_extra_context): `date_string`
// ("02 Dec 2026", read by Llama 3.x templates, which otherwise print their own 2024 default),
// and `datetime` ("Dec 02 2026", firefunction's), in local time as llama.cpp's strftime gives it.
// (`strftime_now(format)`, Llama 3.1's, is the Jinja interpreter's own.) Pure.

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const two = (n: number) => String(n).padStart(2, '0');

/** C's strftime for the conversions the two need and a few more (%d %m %Y %y %b %B %a %A %H %M %S %%); others are left as written. */
export function strftime(format: string, d: Date): string {
  const fields: Record<string, string> = {
    d: two(d.getDate()),
    m: two(d.getMonth() + 1),
    Y: String(d.getFullYear()),
    y: two(d.getFullYear() % 100),
    b: (MONTHS[d.getMonth()] as string).slice(0, 3),
    B: MONTHS[d.getMonth()] as string,
    a: (DAYS[d.getDay()] as string).slice(0, 3),
    A: DAYS[d.getDay()] as string,
    H: two(d.getHours()),
    M: two(d.getMinutes()),
    S: two(d.getSeconds()),
    '%': '%',
  };
  return format.replace(/%(.)/g, (all, c: string) => fields[c] ?? all);
}

/** The date variables of a template's context, for the moment `now`. */
export function templateDate(now: Date): Record<string, unknown> {
  return {
    date_string: strftime('%d %b %Y', now),
    datetime: strftime('%b %d %Y', now),
  };
}
