import { Fragment } from 'react';

/** The pieces of an address between its soft breaks: after the @, before each dot. */
export function emailParts(email: string): string[] {
  return email.split(/(?<=@)|(?=\.)/);
}

/**
 * An e-mail address that a narrow box wraps where a person would (after the @, before each dot), not
 * in the middle of a word (issue 49: "…@localhost.localdom / ain" on phones).
 */
export function BreakableEmail({ email }: { email: string }) {
  const parts = emailParts(email);
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </>
  );
}
