import React from 'react';

interface Props { title: string }

// Header renders a title.
export function Header(props: Props) {
  return <h1>{format(props.title)}</h1>;
}

export const Footer = () => <footer />;
