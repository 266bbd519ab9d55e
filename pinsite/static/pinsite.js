/* pinsite: progressive enhancement. Every page works without this script.
 *
 * - Lists with a "More" link ([data-more]) load their next page as an HTML fragment
 *   (?fragment=1) when the link nears the viewport, and append it in place.
 * - Follow forms ([data-follow]) post in the background and swap in the new button.
 */
(function () {
  "use strict";

  function withFragment(href) {
    const url = new URL(href, window.location.href);
    url.searchParams.set("fragment", "1");
    return url;
  }

  async function fetchFragment(url, init) {
    const response = await fetch(url, Object.assign({ credentials: "same-origin" }, init));
    if (!response.ok) {
      throw new Error("HTTP " + response.status);
    }
    const template = document.createElement("template");
    template.innerHTML = await response.text();
    return template.content;
  }

  async function loadMore(feed, link) {
    if (feed.getAttribute("aria-busy") === "true") {
      return;
    }
    feed.setAttribute("aria-busy", "true");
    try {
      const next = await fetchFragment(withFragment(link.href));
      const items = feed.querySelector("[data-items]");
      const newItems = next.querySelector("[data-items]");
      if (items && newItems) {
        items.append(...newItems.children);
      } else if (newItems) {
        feed.prepend(newItems);
      }
      const nav = feed.querySelector("[data-more-nav]");
      const newNav = next.querySelector("[data-more-nav]");
      if (newNav) {
        nav.replaceWith(newNav);
        watch(feed);
      } else {
        nav.remove();
      }
    } catch (error) {
      link.textContent = "More (loading failed, click to retry)";
    } finally {
      feed.removeAttribute("aria-busy");
    }
  }

  const observer = "IntersectionObserver" in window
    ? new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          if (entry.isIntersecting) {
            observer.unobserve(entry.target);
            loadMore(entry.target.closest("[data-feed]"), entry.target);
          }
        });
      }, { rootMargin: "600px 0px" })
    : null;

  function watch(feed) {
    const link = feed.querySelector("[data-more]");
    if (!link) {
      return;
    }
    link.addEventListener("click", function (event) {
      event.preventDefault();
      loadMore(feed, link);
    });
    if (observer) {
      observer.observe(link);
    }
  }

  async function submitFollow(form) {
    const body = new FormData(form);
    body.set("fragment", "1");
    const button = form.querySelector("button");
    button.disabled = true;
    try {
      const next = await fetchFragment(form.getAttribute("action"), { method: "POST", body: body });
      const newForm = next.querySelector("[data-follow]");
      form.replaceWith(newForm);
      newForm.querySelector("button").focus();
    } catch (error) {
      form.submit();
    }
  }

  document.addEventListener("submit", function (event) {
    const form = event.target.closest("[data-follow]");
    if (form) {
      event.preventDefault();
      submitFollow(form);
    }
  });

  document.querySelectorAll("[data-feed]").forEach(watch);
})();
