import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function UserCreatePage() {
  return <FeaturePending titleKey="pages.userCreate" />;
}
