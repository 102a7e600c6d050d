/**
 * The styles of the Mantine components that only other pages than the first screen use (see
 * first-screen.ts), in Mantine's order. Loaded by `withMoreStyles` before such a page shows; a page
 * that uses a component not listed here shows it unstyled (styles.test.ts checks the whole app).
 * @mantine/dates, charts and dropzone bring their styles with the components that use them.
 */
import '@mantine/core/styles/Badge.css';
import '@mantine/core/styles/Card.css';
import '@mantine/core/styles/Center.css';
import '@mantine/core/styles/Code.css';
import '@mantine/core/styles/ColorSwatch.css';
import '@mantine/core/styles/Divider.css';
import '@mantine/core/styles/Fieldset.css';
import '@mantine/core/styles/Grid.css';
import '@mantine/core/styles/Image.css';
import '@mantine/core/styles/List.css';
import '@mantine/core/styles/Menu.css';
import '@mantine/core/styles/Modal.css';
import '@mantine/core/styles/Pill.css';
import '@mantine/core/styles/PillsInput.css';
import '@mantine/core/styles/NavLink.css';
import '@mantine/core/styles/NumberInput.css';
import '@mantine/core/styles/Pagination.css';
import '@mantine/core/styles/PinInput.css';
import '@mantine/core/styles/Progress.css';
import '@mantine/core/styles/Tooltip.css';
import '@mantine/core/styles/SegmentedControl.css';
import '@mantine/core/styles/Switch.css';
import '@mantine/core/styles/Table.css';
import '@mantine/core/styles/Tabs.css';
import '@mantine/core/styles/ThemeIcon.css';
import '@mantine/core/styles/Timeline.css';
import '@mantine/core/styles/Typography.css';
