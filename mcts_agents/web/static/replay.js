// A replay page: the arrow keys step back and forward (the links do the same).
"use strict";
document.addEventListener("keydown", (event) => {
  const which = { ArrowLeft: "a.back", ArrowRight: "a.forward", Home: "a.first", End: "a.last" }[event.key];
  const link = which && document.querySelector(which);
  if (link) window.location.href = link.href;
});
