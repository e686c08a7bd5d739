/** The XML renderer (src/formats/xml.ts) renders a value as its JSON text would carry it. */
import { describe, expect, it } from 'vitest';
import { toXml } from '../../../src/formats/xml.ts';

describe('toXml of a value', () => {
  it('is the XML of the value’s JSON text: undefined fields left out, toJSON applied, non-finite numbers empty', () => {
    const value = {
      id: 7,
      title: 'A <thing> & more',
      missing: undefined,
      when: { toJSON: () => 'then' },
      ratio: Number.NaN,
      tags: ['a', 'b'],
      nested: { on: true, off: false, none: null },
      fn: () => 1,
    };
    const viaJson = toXml(JSON.parse(JSON.stringify(value)), 'things');
    expect(toXml(value, 'things')).toBe(viaJson);
    expect(viaJson).not.toContain('<missing>');
    expect(viaJson).toContain('<when>then</when>');
    expect(viaJson).toContain('<tags><tag>a</tag><tag>b</tag></tags>');
    expect(viaJson).toContain('A &lt;thing&gt; &amp; more');
  });

  it('names an array body after the route and its members in the singular', () => {
    expect(toXml([{ id: 1 }, { id: 2 }], 'things')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<things><thing><id>1</id></thing><thing><id>2</id></thing></things>',
    );
  });
});
