; Markdown: headings are document entities; sections are computed from levels.
(atx_heading) @def.heading
(setext_heading) @def.heading
